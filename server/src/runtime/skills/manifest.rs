//! A skill's `SKILL.md`: YAML front matter (`name`, `description`, any other
//! keys kept by the skill's author and ignored here) then the instructions.

use serde::Deserialize;

/// A name: lowercase letters, digits and single hyphens, as the skills
/// format has it; also the folder's name.
pub const MAX_NAME_CHARS: usize = 64;
/// The same rule as a regular expression, for the OpenAPI document.
pub const NAME_PATTERN: &str = "^[a-z0-9]+(-[a-z0-9]+)*$";
/// The model reads every description in the system prompt, so it is short.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// A `SKILL.md` larger than this is not a skill (the model would load it
/// whole).
pub const MAX_SKILL_MD_BYTES: usize = 256 * 1024;
/// The file every skill folder holds.
pub const SKILL_MD: &str = "SKILL.md";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    pub name: String,
    pub description: String,
    /// What follows the front matter.
    pub body: String,
}

#[derive(Deserialize)]
struct FrontMatter {
    name: Option<String>,
    description: Option<String>,
}

/// Parses a `SKILL.md`; the error says what is wrong, for the importer.
pub fn parse(text: &str) -> Result<Manifest, String> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("SKILL.md does not start with a front matter block (---)")?;
    let (yaml, body) = split_closing(rest).ok_or("SKILL.md's front matter has no closing ---")?;
    let front: FrontMatter = serde_norway::from_str(yaml)
        .map_err(|e| format!("SKILL.md's front matter is not valid YAML: {e}"))?;
    let name = front
        .name
        .map(|n| n.trim().to_string())
        .ok_or("SKILL.md's front matter has no name")?;
    check_name(&name)?;
    let description = front
        .description
        .map(|d| d.trim().to_string())
        .filter(|d| !d.is_empty())
        .ok_or("SKILL.md's front matter has no description")?;
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(format!(
            "the description is longer than {MAX_DESCRIPTION_CHARS} characters"
        ));
    }
    Ok(Manifest {
        name,
        description,
        body: body.to_string(),
    })
}

/// The front matter and the body after the line holding only `---`.
fn split_closing(rest: &str) -> Option<(&str, &str)> {
    let mut start = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            return Some((&rest[..start], &rest[start + line.len()..]));
        }
        start += line.len();
    }
    None
}

pub fn check_name(name: &str) -> Result<(), String> {
    let well_formed = !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if well_formed {
        Ok(())
    } else {
        Err(format!(
            "a skill's name is 1 to {MAX_NAME_CHARS} lowercase letters, digits and single hyphens (not at either end): {name:?} is not"
        ))
    }
}

/// A `SKILL.md` for a new skill. The description is written as a YAML
/// string (quoted and escaped by the serializer), so it cannot add keys.
pub fn render(name: &str, description: &str, body: &str) -> String {
    #[derive(serde::Serialize)]
    struct Front<'a> {
        name: &'a str,
        description: &'a str,
    }
    let yaml = serde_norway::to_string(&Front { name, description })
        .unwrap_or_else(|_| format!("name: {name}\n"));
    let body = body.trim_start_matches(['\r', '\n']);
    format!("---\n{yaml}---\n\n{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_and_body() {
        let skill = parse(
            "---\nname: pdf-tools\ndescription: >\n  Fill and merge PDFs.\nlicense: MIT\n---\n# Use\nRun it.\n",
        )
        .unwrap();
        assert_eq!(skill.name, "pdf-tools");
        assert_eq!(skill.description, "Fill and merge PDFs.");
        assert_eq!(skill.body, "# Use\nRun it.\n");
    }

    #[test]
    fn what_is_refused() {
        for (text, why) in [
            ("name: x\n", "does not start"),
            ("---\nname: x\n", "no closing"),
            ("---\nname: [\n---\n", "not valid YAML"),
            ("---\ndescription: d\n---\n", "no name"),
            ("---\nname: Bad_Name\ndescription: d\n---\n", "lowercase"),
            ("---\nname: ../up\ndescription: d\n---\n", "lowercase"),
            ("---\nname: ok\n---\n", "no description"),
            ("---\nname: ok\ndescription: '  '\n---\n", "no description"),
        ] {
            let error = parse(text).unwrap_err();
            assert!(error.contains(why), "{text:?}: {error}");
        }
        let long = format!("---\nname: ok\ndescription: {}\n---\n", "a".repeat(1025));
        assert!(parse(&long).unwrap_err().contains("longer"));
        assert!(check_name("a--b").is_err());
        assert!(check_name("-a").is_err());
        assert!(check_name(&"a".repeat(65)).is_err());
        assert!(check_name("a1-b2").is_ok());
        let pattern = regex::Regex::new(NAME_PATTERN).unwrap();
        for name in ["a", "a-b", "a--b", "-a", "a-", "A", "a_b", "é", "1-2-3", ""] {
            assert_eq!(check_name(name).is_ok(), pattern.is_match(name), "{name:?}");
        }
    }

    #[test]
    fn rendered_descriptions_cannot_add_keys() {
        let text = render("ok", "line one\nname: evil\n---\nbody", "Do it.");
        let skill = parse(&text).unwrap();
        assert_eq!(skill.name, "ok");
        assert_eq!(skill.description, "line one\nname: evil\n---\nbody");
        assert_eq!(skill.body.trim(), "Do it.");
    }
}
