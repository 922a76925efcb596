//! Skills through the real router and the real agent: listed from the
//! home and the workspace, created, imported (and bad imports refused with
//! nothing written), toggled, offered to the model by name, loaded with
//! `load_skill`; and a toggle in one codewhale process seen by another.

use crate::common::{
    self,
    agent::{setup_in_workspace, tool_call},
    codewhale_in,
};
use mock_provider::Reply;
use serde_json::{json, Value};
use std::{io::Write, path::Path};

fn skill_md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

fn query(workspace: &Path) -> String {
    format!(
        "?workspace={}",
        url_escape(&workspace.display().to_string())
    )
}

fn url_escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn skills_are_listed_toggled_offered_by_name_and_loaded_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    let s = setup_in_workspace(&workspace, json!({})).await;
    let home = s._h.home.path().canonicalize().unwrap();
    write(
        &home.join("skills/pdf-tools/SKILL.md"),
        &skill_md(
            "pdf-tools",
            "Fill and merge PDF files.",
            "PDF-BODY: use qpdf.\n",
        ),
    );
    write(
        &home.join("skills/pdf-tools/reference.md"),
        "PDF-REFERENCE\n",
    );
    write(
        &home.join("skills/shared/SKILL.md"),
        &skill_md("shared", "The user's version.", "GLOBAL-SHARED\n"),
    );
    write(
        &workspace.join(".codewhale/skills/shared/SKILL.md"),
        &skill_md("shared", "The project's version.", "PROJECT-SHARED\n"),
    );
    // Not skills: a folder without SKILL.md, one naming another skill, a
    // bad front matter, and a link out of the workspace.
    std::fs::create_dir_all(workspace.join(".codewhale/skills/empty")).unwrap();
    write(
        &workspace.join(".codewhale/skills/misnamed/SKILL.md"),
        &skill_md("other-name", "d", ""),
    );
    write(
        &workspace.join(".codewhale/skills/broken/SKILL.md"),
        "no front matter",
    );
    let outside = tempfile::tempdir().unwrap();
    write(
        &outside.path().join("evil/SKILL.md"),
        &skill_md("evil", "Outside the workspace.", "OUTSIDE\n"),
    );
    std::os::unix::fs::symlink(
        outside.path().join("evil"),
        workspace.join(".codewhale/skills/evil"),
    )
    .unwrap();

    let created = s
        .api
        .post(
            "/v1/skills",
            json!({ "name": "release-notes", "description": "Write release notes: first line\nname: injected",
                    "body": "NOTES-BODY\n", "source": "workspace", "workspace": workspace }),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text());
    assert_eq!(created.json()["source"], "workspace");
    assert!(workspace
        .join(".codewhale/skills/release-notes/SKILL.md")
        .is_file());
    let again = s
        .api
        .post(
            "/v1/skills",
            json!({ "name": "release-notes", "description": "d", "body": "" }),
        )
        .await;
    // Another place (global), so no clash; the workspace one still wins.
    assert_eq!(again.status, 201, "{}", again.text());
    let clash = s
        .api
        .post(
            "/v1/skills",
            json!({ "name": "release-notes", "description": "d", "body": "" }),
        )
        .await;
    assert_eq!(clash.status, 409, "{}", clash.text());
    for bad in [
        json!({ "name": "Bad Name", "description": "d", "body": "" }),
        json!({ "name": "ok", "description": "  ", "body": "" }),
        json!({ "name": "ok", "description": "d", "body": "", "workspace": workspace }),
    ] {
        let reply = s.api.post("/v1/skills", &bad).await;
        assert_eq!(reply.status, 400, "{bad}: {}", reply.text());
    }

    let list = s.api.get(&format!("/v1/skills{}", query(&workspace))).await;
    assert_eq!(list.status, 200, "{}", list.text());
    let list = list.json();
    assert_eq!(names(&list), ["pdf-tools", "release-notes", "shared"]);
    let shared = &list[2];
    assert_eq!(shared["source"], "workspace");
    assert_eq!(shared["description"], "The project's version.");
    assert_eq!(
        shared["shadows"],
        home.join("skills/shared").display().to_string()
    );
    assert!(list
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["enabled"] == true));
    let notes = &list[1];
    assert_eq!(
        notes["description"],
        "Write release notes: first line\nname: injected"
    );

    let off = s
        .api
        .patch(
            "/v1/skills/release-notes",
            json!({ "enabled": false, "workspace": workspace }),
        )
        .await;
    assert_eq!(off.status, 200, "{}", off.text());
    assert_eq!(off.json()["enabled"], false);
    let missing = s
        .api
        .patch("/v1/skills/no-such-skill", json!({ "enabled": false }))
        .await;
    assert_eq!(missing.status, 404, "{}", missing.text());

    s.mock
        .push(tool_call("load_skill", json!({ "name": "pdf-tools" })));
    s.mock.push(tool_call(
        "load_skill",
        json!({ "name": "pdf-tools", "file": "reference.md" }),
    ));
    s.mock
        .push(tool_call("load_skill", json!({ "name": "release-notes" })));
    // A link in a global skill stays inside the skill's own folder, not
    // the home it lives in; `..` is refused outright.
    std::fs::write(home.join("planted-secret.txt"), "HOME-SECRET\n").unwrap();
    std::os::unix::fs::symlink(
        "../../planted-secret.txt",
        home.join("skills/pdf-tools/notes.md"),
    )
    .unwrap();
    s.mock.push(tool_call(
        "load_skill",
        json!({ "name": "pdf-tools", "file": "notes.md" }),
    ));
    s.mock.push(tool_call(
        "load_skill",
        json!({ "name": "pdf-tools", "file": "../shared/SKILL.md" }),
    ));
    s.mock.push(Reply::text(&["Done."]));
    s.run("Merge these PDFs").await;
    let requests = s.mock.requests();
    let system = requests[0]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("- pdf-tools: Fill and merge PDF files."),
        "{system}"
    );
    assert!(
        system.contains("- shared (from the project): The project's version."),
        "{system}"
    );
    assert!(
        !system.contains("release-notes"),
        "a disabled skill is not offered: {system}"
    );
    assert!(
        !system.contains("PDF-BODY"),
        "bodies are loaded on demand: {system}"
    );
    assert!(!system.contains("evil") && !system.contains("misnamed"));
    let tool = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "load_skill")
        .expect("load_skill is offered");
    assert_eq!(
        tool["function"]["parameters"]["properties"]["name"]["enum"],
        json!(["pdf-tools", "shared"])
    );
    let last_tool_message = |request: &Value| {
        let messages = request["messages"].as_array().unwrap();
        messages
            .iter()
            .rev()
            .find(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap().to_string())
            .unwrap()
    };
    let loaded = last_tool_message(&requests[1]);
    assert!(loaded.contains("PDF-BODY: use qpdf."), "{loaded}");
    assert!(
        loaded.contains("reference.md"),
        "its other files are named: {loaded}"
    );
    assert_eq!(last_tool_message(&requests[2]), "PDF-REFERENCE\n");
    let refused = last_tool_message(&requests[3]);
    assert!(refused.starts_with("error: no enabled skill"), "{refused}");
    for request in &requests[4..6] {
        let refused = last_tool_message(request);
        assert!(refused.starts_with("error:"), "{refused}");
        assert!(!refused.contains("HOME-SECRET") && !refused.contains("GLOBAL-SHARED"));
    }

    let detail = s.detail().await;
    let calls: Vec<_> = detail
        .items
        .iter()
        .filter(|i| i.metadata["tool"] == "load_skill")
        .collect();
    assert_eq!(calls.len(), 5);
    assert_eq!(calls[0].status.as_str(), "completed");
    assert_eq!(calls[0].metadata["skill"], "pdf-tools");
    assert_eq!(calls[2].status.as_str(), "failed");
}

/// A tar archive whose one entry's header says `path` and `kind`, written
/// by hand: the `tar` crate refuses to write `..` itself.
fn tar_with(path: &str, kind: tar::EntryType, data: &[u8]) -> Vec<u8> {
    let mut header = tar::Header::new_gnu();
    header.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
    header.set_entry_type(kind);
    header.set_size(data.len() as u64);
    header.set_mode(0o644);
    if kind == tar::EntryType::Symlink {
        header.set_link_name("/etc/passwd").unwrap();
    }
    header.set_cksum();
    let mut builder = tar::Builder::new(Vec::new());
    let good = skill_md("fine", "d", "");
    let mut skill = tar::Header::new_gnu();
    skill.set_path("fine/SKILL.md").unwrap();
    skill.set_size(good.len() as u64);
    skill.set_mode(0o644);
    skill.set_cksum();
    builder.append(&skill, good.as_bytes()).unwrap();
    builder.append(&header, data).unwrap();
    builder.into_inner().unwrap()
}

/// A tar archive of these (header type, path, data) entries.
fn tar_of(entries: &[(tar::EntryType, &str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (kind, path, data) in entries {
        let mut header = tar::Header::new_gnu();
        header.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_entry_type(*kind);
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append(&header, *data).unwrap();
    }
    builder.into_inner().unwrap()
}

fn zip_of(entries: &[(&str, &[u8])], link: Option<&str>) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, data) in entries {
        zip.start_file(*name, options).unwrap();
        zip.write_all(data).unwrap();
    }
    if let Some(link) = link {
        zip.add_symlink(link, "/etc/passwd", options).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[tokio::test]
async fn imports_are_checked_before_anything_is_written() {
    let h = common::Harness::new().await;
    let api = h.api().await;
    let home = h.home.path().canonicalize().unwrap();
    let sources = tempfile::tempdir().unwrap();
    let at = |name: &str, bytes: &[u8]| {
        let path = sources.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let good = skill_md("good-skill", "A fine skill.", "GOOD\n");
    let big = vec![0u8; 9 * 1024 * 1024];
    let many: Vec<(String, Vec<u8>)> = (0..300)
        .map(|i| (format!("many/f{i}"), vec![b'x']))
        .chain([(
            "many/SKILL.md".to_string(),
            skill_md("many", "d", "").into_bytes(),
        )])
        .collect();
    let many_refs: Vec<(&str, &[u8])> = many
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let linked = sources.path().join("linked");
    write(&linked.join("SKILL.md"), &skill_md("linked", "d", ""));
    std::os::unix::fs::symlink("/etc/passwd", linked.join("passwd")).unwrap();
    let cases: Vec<(&str, std::path::PathBuf, u16)> = vec![
        (
            "a tar entry climbing out",
            at(
                "up.tar",
                &tar_with("fine/../../evil", tar::EntryType::Regular, b"x"),
            ),
            409,
        ),
        (
            "an absolute tar entry",
            at(
                "abs.tar",
                &tar_with("/tmp/evil", tar::EntryType::Regular, b"x"),
            ),
            409,
        ),
        (
            "a tar symlink",
            at(
                "link.tar",
                &tar_with("fine/passwd", tar::EntryType::Symlink, b""),
            ),
            409,
        ),
        (
            "a tar hard link",
            at(
                "hard.tar.gz",
                &gzip(&tar_with("fine/passwd", tar::EntryType::Link, b"")),
            ),
            409,
        ),
        (
            "a zip entry climbing out",
            at(
                "up.zip",
                &zip_of(&[("SKILL.md", good.as_bytes()), ("../evil", b"x")], None),
            ),
            409,
        ),
        (
            "a zip symlink",
            at(
                "link.skill",
                &zip_of(&[("SKILL.md", good.as_bytes())], Some("passwd")),
            ),
            409,
        ),
        (
            "a gzip bomb",
            at(
                "bomb.tar.gz",
                &gzip(&tar_with("fine/zeros", tar::EntryType::Regular, &big)),
            ),
            413,
        ),
        (
            "too many files",
            at("many.zip", &zip_of(&many_refs, None)),
            413,
        ),
        (
            "a long-name header larger than the whole budget",
            at(
                "longname.tar.gz",
                &gzip(&tar_of(&[(
                    tar::EntryType::GNULongName,
                    "././@LongLink",
                    &vec![b'a'; 20 << 20],
                )])),
            ),
            413,
        ),
        (
            "one file twice, the second unchecked",
            at(
                "twice.zip",
                &zip_of(
                    &[
                        ("SKILL.md", good.as_bytes()),
                        ("skill.md", b"---\nname: other\n"),
                    ],
                    None,
                ),
            ),
            409,
        ),
        ("a folder holding a link", linked, 409),
        (
            "no SKILL.md",
            at("none.zip", &zip_of(&[("README.md", b"x")], None)),
            409,
        ),
        ("not an archive", at("plain.txt", b"just text"), 409),
        ("nothing there", sources.path().join("missing.zip"), 409),
    ];
    for (what, path, status) in &cases {
        let reply = api.post("/v1/skills/import", json!({ "path": path })).await;
        assert_eq!(reply.status, *status, "{what}: {}", reply.text());
        assert!(reply.json()["error"]["message"].is_string(), "{what}");
    }
    let relative = api
        .post("/v1/skills/import", json!({ "path": "relative/skill" }))
        .await;
    assert_eq!(relative.status, 400);
    // Nothing was written: no skill, no staging folder, nothing outside.
    let left: Vec<_> = std::fs::read_dir(home.join("skills"))
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    assert!(!sources.path().parent().unwrap().join("evil").exists());

    // Good imports: a folder, a zip with one top folder, a tar.gz.
    let folder = sources.path().join("good-skill");
    write(&folder.join("SKILL.md"), &good);
    write(&folder.join("scripts/run.sh"), "echo never run\n");
    let reply = api
        .post("/v1/skills/import", json!({ "path": folder }))
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    assert_eq!(reply.json()["name"], "good-skill");
    assert_eq!(
        std::fs::read_to_string(home.join("skills/good-skill/scripts/run.sh")).unwrap(),
        "echo never run\n"
    );
    let zipped = at(
        "zipped.skill",
        &zip_of(
            &[
                (
                    "zipped/SKILL.md",
                    skill_md("zipped", "Zipped.", "Z\n").as_bytes(),
                ),
                ("zipped/a/b.txt", b"B"),
                ("__MACOSX/zipped/._SKILL.md", b"litter"),
            ],
            None,
        ),
    );
    let reply = api
        .post("/v1/skills/import", json!({ "path": zipped }))
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    assert_eq!(
        std::fs::read_to_string(home.join("skills/zipped/a/b.txt")).unwrap(),
        "B"
    );
    assert!(!home.join("skills/zipped/__MACOSX").exists());
    let tarred = {
        let mut builder = tar::Builder::new(Vec::new());
        let text = skill_md("tarred", "Tarred.", "T\n");
        let mut header = tar::Header::new_gnu();
        header.set_path("SKILL.md").unwrap();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append(&header, text.as_bytes()).unwrap();
        at("tarred.tgz", &gzip(&builder.into_inner().unwrap()))
    };
    let reply = api
        .post("/v1/skills/import", json!({ "path": tarred }))
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());

    // A `git archive` tarball: its PAX global header is skipped.
    let git_style = tar_of(&[
        (
            tar::EntryType::XGlobalHeader,
            "pax_global_header",
            b"15 comment=git\n",
        ),
        (tar::EntryType::Directory, "git-skill/", b""),
        (
            tar::EntryType::Regular,
            "git-skill/SKILL.md",
            skill_md("git-skill", "From git.", "G\n").as_bytes(),
        ),
    ]);
    let reply = api
        .post(
            "/v1/skills/import",
            json!({ "path": at("git.tar", &git_style) }),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());

    // The same name again: refused, unless replace is asked.
    let reply = api
        .post("/v1/skills/import", json!({ "path": folder }))
        .await;
    assert_eq!(reply.status, 409, "{}", reply.text());
    write(
        &folder.join("SKILL.md"),
        &skill_md("good-skill", "Second version.", ""),
    );
    let reply = api
        .post(
            "/v1/skills/import",
            json!({ "path": folder, "replace": true }),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    assert_eq!(reply.json()["description"], "Second version.");
    let list = api.get("/v1/skills").await.json();
    assert_eq!(
        names(&list),
        ["git-skill", "good-skill", "tarred", "zipped"]
    );
    let hidden: Vec<_> = std::fs::read_dir(home.join("skills"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "no staging or replaced folder is left");
}

#[tokio::test]
async fn a_linked_skills_folder_is_neither_read_nor_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    let s = setup_in_workspace(&workspace, json!({})).await;
    let outside = tempfile::tempdir().unwrap();
    write(
        &outside.path().join("skills/planted/SKILL.md"),
        &skill_md("planted", "Planted.", ""),
    );
    std::os::unix::fs::symlink(outside.path(), workspace.join(".codewhale")).unwrap();
    let list = s.api.get(&format!("/v1/skills{}", query(&workspace))).await;
    assert_eq!(list.status, 200);
    assert!(names(&list.json()).is_empty());
    let reply = s
        .api
        .post(
            "/v1/skills",
            json!({ "name": "escape", "description": "d", "body": "", "source": "workspace", "workspace": workspace }),
        )
        .await;
    assert_eq!(reply.status, 409, "{}", reply.text());
    assert!(!outside.path().join("skills/escape").exists());
    let unknown = s.api.get("/v1/skills?workspace=%2Fetc").await;
    assert_eq!(unknown.status, 403, "{}", unknown.text());
}

#[tokio::test]
async fn a_toggle_in_one_process_is_seen_by_another_and_concurrent_toggles_all_land() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..8).map(|i| format!("skill-{i}")).collect();
    for name in &names {
        write(
            &home.path().join(format!("skills/{name}/SKILL.md")),
            &skill_md(name, "d", ""),
        );
    }
    let start = || {
        let mut command = codewhale_in(home.path());
        command
            .args(["app-server", "--http", "--port", "0"])
            .current_dir(workspace.path())
            .env("CODEWHALE_RUNTIME_TOKEN", common::TOKEN);
        common::process::start(command)
    };
    let (one, two) = (start(), start());
    let client = common::api_client();
    let list = |base: String| {
        let client = client.clone();
        async move {
            let reply = client
                .get(format!("{base}/v1/skills"))
                .send()
                .await
                .unwrap();
            assert_eq!(reply.status(), 200);
            reply.json::<Value>().await.unwrap()
        }
    };
    let toggle = |base: String, name: String, enabled: bool| {
        let client = client.clone();
        async move {
            let reply = client
                .patch(format!("{base}/v1/skills/{name}"))
                .json(&json!({ "enabled": enabled }))
                .send()
                .await
                .unwrap();
            assert_eq!(reply.status(), 200, "{name}");
        }
    };
    toggle(one.base.clone(), "skill-0".into(), false).await;
    let seen = list(two.base.clone()).await;
    assert_eq!(seen[0]["name"], "skill-0");
    assert_eq!(
        seen[0]["enabled"], false,
        "the other process sees it at once"
    );

    // Every other skill switched off, half through each process, at once:
    // each merge keeps the others' changes.
    let toggles = names.iter().skip(1).enumerate().map(|(i, name)| {
        let base = if i % 2 == 0 { &one.base } else { &two.base };
        toggle(base.clone(), name.clone(), false)
    });
    futures::future::join_all(toggles).await;
    for base in [&one.base, &two.base] {
        let seen = list(base.clone()).await;
        assert!(
            seen.as_array()
                .unwrap()
                .iter()
                .all(|s| s["enabled"] == false),
            "{seen}"
        );
    }
    toggle(two.base.clone(), "skill-3".into(), true).await;
    let seen = list(one.base.clone()).await;
    let on: Vec<_> = seen
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["enabled"] == true)
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(on, [json!("skill-3")]);
}
