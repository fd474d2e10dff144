//! The caller of a use case: who they are, how they proved it, and what their role lets them
//! do.

use crate::domain::Role;
use crate::error::{AppError, AppResult};

/// The caller of a request, resolved from a valid credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated {
    pub user_id: String,
    pub email: String,
    pub role: Role,
    pub method: AuthMethod,
    session_id: Option<String>,
}

/// How the caller proved who they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthMethod {
    /// The console session cookie.
    Session,
    /// A bearer API token.
    Token { token_id: String },
}

/// What a route needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// Reading anything behind sign-in: every role.
    Read,
    /// Changing incidents, maintenance, components, postmortems, subscribers: responders, owners.
    Write,
    /// Users, tokens of others, settings: owners.
    Admin,
}

impl Authenticated {
    /// A caller (for tests and callers that resolved one themselves); no session id.
    pub fn new(user_id: String, email: String, role: Role, method: AuthMethod) -> Self {
        Self::with_session(user_id, email, role, method, None)
    }

    pub(crate) fn with_session(
        user_id: String,
        email: String,
        role: Role,
        method: AuthMethod,
        session_id: Option<String>,
    ) -> Self {
        Self {
            user_id,
            email,
            role,
            method,
            session_id,
        }
    }

    /// Whether the caller's role grants `p`.
    pub fn can(&self, p: Permission) -> bool {
        match p {
            Permission::Read => true,
            Permission::Write => self.role.can_write(),
            Permission::Admin => self.role.is_owner(),
        }
    }

    /// `Ok` when the caller's role grants `p`, else [`AppError::Forbidden`] (403).
    pub fn require(&self, p: Permission) -> AppResult<()> {
        if self.can(p) {
            Ok(())
        } else {
            Err(AppError::Forbidden)
        }
    }

    /// The console session id, for session callers.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(role: Role) -> Authenticated {
        Authenticated::new(
            "u".into(),
            "u@example.com".into(),
            role,
            AuthMethod::Session,
        )
    }

    #[test]
    fn viewers_read_responders_write_owners_administer() {
        use Permission::*;
        let grants = |role| [Read, Write, Admin].map(|p| caller(role).require(p).is_ok());
        assert_eq!(grants(Role::Viewer), [true, false, false]);
        assert_eq!(grants(Role::Responder), [true, true, false]);
        assert_eq!(grants(Role::Owner), [true, true, true]);
    }

    #[test]
    fn a_refused_permission_is_forbidden() {
        let err = caller(Role::Viewer).require(Permission::Write).unwrap_err();
        assert!(matches!(err, AppError::Forbidden));
    }
}
