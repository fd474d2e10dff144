//! The API's query-string extractor: like `web::Query`, but a value that cannot be read is a
//! 422 on the parameter concerned, in Herald's error shape, with serde's message and nothing of
//! actix's wording (`serde_path_to_error` over `serde_urlencoded`).

use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use serde::de::DeserializeOwned;

use crate::error::{AppError, AppResult};

/// The query string as `T`.
#[derive(Debug)]
pub struct Query<T>(pub T);

impl<T> Query<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Query<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned> FromRequest for Query<T> {
    type Error = AppError;
    type Future = Ready<Result<Self, AppError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(parse(req.query_string()).map(Query))
    }
}

/// `query` as `T`, or a 422 naming the parameter that could not be read.
pub fn parse<T: DeserializeOwned>(query: &str) -> AppResult<T> {
    let pairs = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
    serde_path_to_error::deserialize(pairs).map_err(|e| {
        let message = e.inner().to_string();
        let field = super::body::field_of(e.path(), &message, "query");
        AppError::field(&field, format!("cannot be read: {message}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct List {
        limit: Option<u32>,
        offset: Option<i64>,
        status: Option<String>,
    }

    fn field_of(query: &str) -> Vec<String> {
        match parse::<List>(query) {
            Err(AppError::Validation(fields)) => fields.into_keys().collect(),
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn a_value_that_cannot_be_read_names_its_parameter() {
        assert_eq!(field_of("offset=99999999999999999999999"), ["offset"]);
        assert_eq!(field_of("status=open&limit=-1"), ["limit"]);
        let list = parse::<List>("limit=5&status=open").unwrap();
        assert_eq!((list.limit, list.offset), (Some(5), None));
    }
}
