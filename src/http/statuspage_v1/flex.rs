//! Values as both kinds of body give them: a form's values are all text, so a switch may come
//! as `true` or `"true"` (`"1"`, `"0"`), and a number as `3` or `"3"`.

use serde::{Deserialize, Deserializer, de};

/// A switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Bool(bool),
            Text(String),
        }
        match Given::deserialize(d).map_err(|_| de::Error::custom("must be true or false"))? {
            Given::Bool(b) => Ok(Flag(b)),
            Given::Text(t) => match t.as_str() {
                "true" | "1" => Ok(Flag(true)),
                "false" | "0" => Ok(Flag(false)),
                _ => Err(de::Error::custom("must be true or false")),
            },
        }
    }
}

/// A whole number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Int(pub i32);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Number(i64),
            Text(String),
        }
        let refused = || de::Error::custom("must be a whole number");
        let n = match Given::deserialize(d).map_err(|_| refused())? {
            Given::Number(n) => n,
            Given::Text(t) => t.trim().parse::<i64>().map_err(|_| refused())?,
        };
        i32::try_from(n).map(Int).map_err(|_| refused())
    }
}

/// A list, which a form may give as one value.
pub fn list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Given {
        Many(Vec<String>),
        One(String),
    }
    Ok(
        match Option::<Given>::deserialize(d)
            .map_err(|_| de::Error::custom("must be a list of ids"))?
        {
            None => None,
            Some(Given::Many(items)) => Some(items),
            Some(Given::One(item)) => Some(vec![item]),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn switches_and_numbers_come_as_json_or_form_text() {
        let flag = |v| serde_json::from_value::<Flag>(v).map(|f| f.0);
        assert!(flag(json!(true)).unwrap());
        assert!(flag(json!("true")).unwrap());
        assert!(!flag(json!("0")).unwrap());
        assert!(flag(json!("yes")).is_err());
        let int = |v| serde_json::from_value::<Int>(v).map(|i| i.0);
        assert_eq!(int(json!(3)).unwrap(), 3);
        assert_eq!(int(json!("3")).unwrap(), 3);
        assert!(int(json!("x")).is_err());
        assert!(int(json!(1u64 << 40)).is_err());
    }
}
