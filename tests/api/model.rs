//! Data model use cases on both backends.
