//! Console sessions (filled in next).
