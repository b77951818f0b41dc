//! Placeholder: filled in by the code-generation issue.
