//! `/skills`: the skills offered to the model — the user's own
//! (`$CODEWHALE_HOME/skills`) and the default workspace's
//! (`.codewhale/skills`) — each switched on or off for every codewhale
//! process on this computer, and an import from a folder or an archive on
//! this machine. The list reads the same with JavaScript off.

use crate::{
    api::{import_skill, load_skills, toggle_skill},
    components::{failure, row_action, row_error, row_pending, ErrorLine, ErrorNotice, RowAction},
    protocol::{SkillRecord, SkillSource},
};
use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn Skills() -> impl IntoView {
    let version = RwSignal::new(0u32);
    let skills = Resource::new(move || version.get(), |_| load_skills());
    let reload = move || version.update(|n| *n = n.wrapping_add(1));
    let toggle = row_action(|name, enabled: bool| toggle_skill(name, enabled));
    Effect::new(move |_| {
        if let Some(Ok(())) = toggle.value().get() {
            reload();
        }
    });
    view! {
        <Title text="Skills · codewhale" />
        <section class="background-page" aria-labelledby="skills-title">
            <h1 id="skills-title">"Skills"</h1>
            <p class="muted">
                "Folders with a " <code>"SKILL.md"</code> ". The model sees each enabled skill's name and "
                "description and reads the rest when a task calls for it. A project's skill "
                "(in " <code>".codewhale/skills"</code> ") hides one of yours with the same name."
            </p>
            <ImportForm imported=Callback::new(move |()| reload()) />
            <Transition fallback=|| view! { <p class="muted">"Loading skills…"</p> }>
                {move || Suspend::new(async move {
                    match skills.await {
                        Ok(list) if list.is_empty() => view! {
                            <p class="muted" data-test="no-skills">"No skills yet."</p>
                        }.into_any(),
                        Ok(list) => view! {
                            <ul class="background-list" data-test="skill-list">
                                {list.into_iter().map(|skill| view! { <SkillRow skill toggle /> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <ErrorNotice message=format!("Could not load skills: {error}") /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn SkillRow(skill: SkillRecord, toggle: RowAction<bool>) -> impl IntoView {
    let name = skill.name.clone();
    let pending = row_pending(toggle, name.clone());
    let enabled = skill.enabled;
    let source = match skill.source {
        SkillSource::Global => "yours",
        SkillSource::Workspace => "this project's",
    };
    let state = if enabled { "enabled" } else { "disabled" };
    view! {
        <li class="background-item" data-test="skill" data-skill=skill.name.clone() data-enabled=enabled.to_string()>
            <div class="background-facts">
                <span class=format!("status-chip status-{state}") data-test="skill-state">{state}</span>
                <span class="background-title">{skill.name.clone()}</span>
                <span class="chip muted">{source}</span>
            </div>
            <p>{skill.description.clone()}</p>
            <p class="muted"><code>{skill.path.clone()}</code>
                {skill.shadows.clone().map(|hidden| view! { " (hides " <code>{hidden}</code> ")" })}
            </p>
            <div class="actions">
                <button type="button" data-test="toggle-skill" disabled=pending
                    aria-label=format!("{} {}", if enabled { "Disable" } else { "Enable" }, skill.name)
                    on:click=move |_| { toggle.dispatch((name.clone(), !enabled)); }>
                    {if enabled { "Disable" } else { "Enable" }}
                </button>
            </div>
            <ErrorLine error=row_error(toggle, skill.name.clone()) />
        </li>
    }
}

/// "Import a skill": a path on this machine, where it goes, and whether it
/// may replace one of the same name. The runtime checks what it holds.
#[component]
fn ImportForm(imported: Callback<()>) -> impl IntoView {
    let path = RwSignal::new(String::new());
    let to_project = RwSignal::new(false);
    let replace = RwSignal::new(false);
    let import = Action::new(move |(path, to_project, replace): &(String, bool, bool)| {
        let source = if *to_project {
            SkillSource::Workspace
        } else {
            SkillSource::Global
        };
        import_skill(path.clone(), source, *replace)
    });
    let done = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if let Some(Ok(name)) = import.value().get() {
            path.set(String::new());
            done.set(Some(format!("Imported {name}.")));
            imported.run(());
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        done.set(None);
        import.dispatch((
            path.get_untracked(),
            to_project.get_untracked(),
            replace.get_untracked(),
        ));
    };
    view! {
        <details class="card automation-form">
            <summary class="button primary" data-test="import-skill">"Import a skill"</summary>
            <form on:submit=submit class="stack" aria-label="Import a skill">
                <label>"Folder or archive on this computer (.zip, .skill, .tar, .tar.gz)"
                    <input name="path" bind:value=path required placeholder="/home/you/Downloads/pdf-tools.skill"
                        data-test="skill-path" />
                </label>
                <label class="check">
                    <input type="checkbox" bind:checked=to_project data-test="skill-to-project" />
                    " Into this project's .codewhale/skills (otherwise yours, for every project)"
                </label>
                <label class="check">
                    <input type="checkbox" bind:checked=replace data-test="skill-replace" />
                    " Replace a skill of the same name"
                </label>
                <button type="submit" class="primary" data-test="import-skill-submit"
                    disabled=move || import.pending().get()>"Import"</button>
                <p class="muted" role="status" data-test="skill-imported">{move || done.get()}</p>
                <ErrorLine error=failure(import) />
            </form>
        </details>
    }
}
