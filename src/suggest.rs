//! "Did you mean …": the closest known name to a misspelt one.

/// The candidate closest to `input` by edit distance, if it is close enough to be a
/// plausible typo (about a third of the word's letters off, and at least one).
pub fn closest<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let input = input.to_ascii_lowercase();
    let length = input.chars().count();
    let limit = length.div_ceil(3).max(1);
    candidates
        .into_iter()
        .map(|c| (c, c.to_ascii_lowercase()))
        // The distance is at least the difference in length: a long input (a pasted
        // line, a value of megabytes) is far from every name without comparing a letter.
        .filter(|(_, lower)| lower.chars().count().abs_diff(length) <= limit)
        .map(|(c, lower)| (edit_distance(&input, &lower), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The one help text for a name that is not among `candidates`: "did you mean `x`?" when
/// one is close, else every candidate, as "the {what} are: a, b, c".
pub fn help<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
    what: &str,
) -> String {
    match closest(input, candidates.clone()) {
        Some(near) => format!("did you mean `{near}`?"),
        None => format!(
            "the {what} are: {}",
            candidates.into_iter().collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The edit distance of two names, letter case aside.
pub fn distance(a: &str, b: &str) -> usize {
    edit_distance(&a.to_ascii_lowercase(), &b.to_ascii_lowercase())
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == *cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_typos_and_ignores_strangers() {
        let names = ["clients", "capacity", "horizon"];
        assert_eq!(closest("clinets", names), Some("clients"));
        assert_eq!(closest("Capacity", names), Some("capacity"));
        assert_eq!(closest("banana", names), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(help("clinets", names, "keys"), "did you mean `clients`?");
        assert_eq!(
            help("banana", names, "keys here"),
            "the keys here are: clients, capacity, horizon"
        );
    }
}
