//! The password rule for Herald accounts: long enough to resist guessing, short enough to hash
//! cheaply, and not blank.

/// The shortest accepted password, in characters.
pub const MIN_PASSWORD_LEN: usize = 12;
/// The longest accepted password, in characters.
pub const MAX_PASSWORD_LEN: usize = 256;

/// Why a password is refused. Messages never contain the password.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    /// Fewer than 12 characters.
    #[error("the password must be at least {MIN_PASSWORD_LEN} characters long")]
    TooShort,
    /// More than 256 characters.
    #[error("the password must be at most {MAX_PASSWORD_LEN} characters long")]
    TooLong,
    /// Only whitespace.
    #[error("the password must contain at least one character that is not whitespace")]
    OnlyWhitespace,
}

/// Checks a new password: 12 to 256 characters, not all whitespace.
pub fn check_password(p: &str) -> Result<(), PasswordError> {
    let len = p.chars().count();
    if len < MIN_PASSWORD_LEN {
        return Err(PasswordError::TooShort);
    }
    if len > MAX_PASSWORD_LEN {
        return Err(PasswordError::TooLong);
    }
    if p.chars().all(char::is_whitespace) {
        return Err(PasswordError::OnlyWhitespace);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_checked_by_length_in_characters_and_content() {
        let cases = [
            ("correct horse battery staple".to_owned(), Ok(())),
            ("a".repeat(12), Ok(())),
            ("a".repeat(256), Ok(())),
            ("ü".repeat(12), Ok(())),
            ("  padded pw  ".to_owned(), Ok(())),
            ("a".repeat(11), Err(PasswordError::TooShort)),
            (String::new(), Err(PasswordError::TooShort)),
            ("a".repeat(257), Err(PasswordError::TooLong)),
            (" ".repeat(12), Err(PasswordError::OnlyWhitespace)),
            ("\t\n ".repeat(5), Err(PasswordError::OnlyWhitespace)),
        ];
        for (password, expected) in cases {
            assert_eq!(check_password(&password), expected, "{password:?}");
        }
    }

    #[test]
    fn error_messages_state_the_rule() {
        let cases = [
            (PasswordError::TooShort, "at least 12 characters"),
            (PasswordError::TooLong, "at most 256 characters"),
            (PasswordError::OnlyWhitespace, "not whitespace"),
        ];
        for (err, rule) in cases {
            assert!(err.to_string().contains(rule), "{err}");
        }
    }
}
