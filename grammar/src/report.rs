//! Diagnostic reporters: human (miette), JSON and GitHub annotations.
