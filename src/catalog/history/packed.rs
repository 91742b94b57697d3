//! A state's `[record, line, …]` tuples written as one string of numbers
//! (`"4,120,0,9,133,0"`): the bulk of a history, read at every start-up of
//! an engine with one, and a string is read far faster than as many small
//! arrays.

use serde::{de::Error, Deserialize, Deserializer, Serializer};

pub fn serialize<S: Serializer, const N: usize>(v: &[[u32; N]], s: S) -> Result<S::Ok, S::Error> {
    let mut out = String::with_capacity(v.len() * N * 4);
    for (i, n) in v.iter().flatten().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&n.to_string());
    }
    s.serialize_str(&out)
}

pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(d: D) -> Result<Vec<[u32; N]>, D::Error> {
    let text: std::borrow::Cow<'de, str> = Deserialize::deserialize(d)?;
    // By hand, byte by byte: this runs over every state at start-up.
    let mut numbers: Vec<u32> = Vec::with_capacity(text.len() / 3);
    let (mut n, mut digits) = (0u32, 0usize);
    for &b in text.as_bytes().iter().chain(std::iter::once(&b',')) {
        match b {
            b'0'..=b'9' => {
                n = n
                    .checked_mul(10)
                    .and_then(|n| n.checked_add(u32::from(b - b'0')))
                    .ok_or_else(|| D::Error::custom("a number over u32"))?;
                digits += 1;
            }
            b',' if digits > 0 => {
                numbers.push(n);
                (n, digits) = (0, 0);
            }
            b',' if text.is_empty() => {}
            _ => return Err(D::Error::custom("a state's records are not numbers separated by `,`")),
        }
    }
    if !numbers.len().is_multiple_of(N) {
        return Err(D::Error::custom(format!("{} numbers do not make tuples of {N}", numbers.len())));
    }
    Ok(numbers.chunks_exact(N).map(|c| std::array::from_fn(|i| c[i])).collect())
}
