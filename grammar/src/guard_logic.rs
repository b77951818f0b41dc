//! Satisfiability of guard expressions.
