//! Support references such as `SUP-7K3Q9M2X`: eight Crockford base32 symbols (no I, L, O, U, so
//! nothing reads as another character), easy to read out on the phone. 40 random bits make a
//! clash between two submissions unlikely; the submission id, not the reference, is the key.

use rand::Rng;

/// Crockford's base32 alphabet.
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// The prefix of every reference.
pub const PREFIX: &str = "SUP-";
/// Symbols after the prefix.
pub const LEN: usize = 8;

/// A new random reference.
pub fn new_reference() -> String {
    let mut rng = rand::thread_rng();
    let mut out = String::with_capacity(PREFIX.len() + LEN);
    out.push_str(PREFIX);
    for _ in 0..LEN {
        out.push(ALPHABET[rng.gen_range(0..ALPHABET.len())] as char);
    }
    out
}

/// The reference spelled by the low 40 bits of `bits` (a submission's derived identity).
pub fn from_bits(bits: u64) -> String {
    let mut out = String::with_capacity(PREFIX.len() + LEN);
    out.push_str(PREFIX);
    for i in (0..LEN).rev() {
        let symbol = (bits >> (5 * i)) & 0x1f;
        out.push(ALPHABET[symbol as usize] as char);
    }
    out
}

/// The canonical form of a reference as someone typed it: case ignored, `O` read as zero,
/// `I` and `L` as one, spaces and dashes inside ignored, the prefix optional. `None` when it
/// cannot be a reference.
pub fn normalize(input: &str) -> Option<String> {
    let upper = input.trim().to_ascii_uppercase();
    let body = upper.strip_prefix("SUP").unwrap_or(&upper);
    let mut symbols = String::with_capacity(LEN);
    for c in body.chars() {
        let c = match c {
            '-' | ' ' => continue,
            'O' => '0',
            'I' | 'L' => '1',
            c if ALPHABET.contains(&(c as u8)) && c.is_ascii() => c,
            _ => return None,
        };
        symbols.push(c);
    }
    (symbols.len() == LEN).then(|| format!("{PREFIX}{symbols}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_use_only_unambiguous_symbols() {
        for _ in 0..200 {
            let r = new_reference();
            assert_eq!(r.len(), PREFIX.len() + LEN);
            let body = r.strip_prefix(PREFIX).unwrap();
            assert!(body.bytes().all(|b| ALPHABET.contains(&b)), "{r}");
            assert!(!body.contains(['I', 'L', 'O', 'U']), "{r}");
        }
    }

    #[test]
    fn typed_references_are_read_forgivingly() {
        assert_eq!(normalize("sup-7k3q9m2x").as_deref(), Some("SUP-7K3Q9M2X"));
        assert_eq!(normalize(" 7K3Q 9M2X ").as_deref(), Some("SUP-7K3Q9M2X"));
        assert_eq!(normalize("SUP-OIL00000").as_deref(), Some("SUP-01100000"));
        assert_eq!(normalize("SUP-7K3Q9"), None, "too short");
        assert_eq!(normalize("SUP-7K3Q9M2U"), None, "U is not a symbol");
        assert_eq!(normalize("SUP-7K3Q9M2É"), None);
    }
}
