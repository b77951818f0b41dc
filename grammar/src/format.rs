//! The canonical formatter (`fsmc fmt`).
