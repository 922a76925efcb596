use super::{failure, run_in_words, ErrorLine};
use crate::api::{create_automation, preview_schedule, AutomationDraft};
use leptos::prelude::*;

/// The schedules offered by name; "cron" and "minutes" take what is typed.
const PRESETS: [(&str, &str); 6] = [
    ("hourly", "Every hour"),
    ("daily", "Every day at 09:00"),
    ("weekdays", "Weekdays at 09:00"),
    ("weekly", "Mondays at 09:00"),
    ("minutes", "Every N minutes…"),
    ("cron", "Cron expression…"),
];

/// (cron, interval seconds) of a choice.
fn schedule_of(choice: &str, cron: &str, minutes: &str) -> (Option<String>, Option<u64>) {
    match choice {
        "hourly" => (None, Some(3600)),
        "daily" => (Some("0 9 * * *".into()), None),
        "weekdays" => (Some("0 9 * * 1-5".into()), None),
        "weekly" => (Some("0 9 * * 1".into()), None),
        "minutes" => (None, minutes.trim().parse::<u64>().ok().map(|m| m * 60)),
        _ => (
            Some(cron.trim().to_string()).filter(|c| !c.is_empty()),
            None,
        ),
    }
}

/// "New automation": name, prompt, a schedule picker that shows the next
/// runs in words as it is edited, the time zone, and the permissions.
#[component]
pub fn AutomationForm(changed: Callback<()>) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let prompt = RwSignal::new(String::new());
    let choice = RwSignal::new("weekdays".to_string());
    let cron = RwSignal::new("0 9 * * 1-5".to_string());
    let minutes = RwSignal::new("30".to_string());
    let timezone = RwSignal::new(String::new());
    let auto_approve = RwSignal::new(false);
    let open = RwSignal::new(false);
    let schedule = Memo::new(move |_| schedule_of(&choice.get(), &cron.get(), &minutes.get()));
    let zone = move || Some(timezone.get().trim().to_string()).filter(|z| !z.is_empty());
    let preview = Resource::new(
        move || (schedule.get(), zone()),
        |((cron, interval), zone)| preview_schedule(cron, interval, zone),
    );
    let create = Action::new(move |draft: &AutomationDraft| create_automation(draft.clone()));
    Effect::new(move |_| {
        if let Some(Ok(())) = create.value().get() {
            name.set(String::new());
            prompt.set(String::new());
            open.set(false);
            changed.run(());
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (cron, interval) = schedule.get_untracked();
        create.dispatch(AutomationDraft {
            name: name.get_untracked(),
            prompt: prompt.get_untracked(),
            schedule: cron,
            interval_seconds: interval,
            timezone: zone(),
            auto_approve: auto_approve.get_untracked(),
        });
    };
    let options = PRESETS
        .into_iter()
        .map(|(value, label)| view! { <option value=value>{label}</option> })
        .collect_view();
    view! {
        <details class="card automation-form" prop:open=open
            on:toggle=move |ev| open.set(event_target::<leptos::web_sys::HtmlDetailsElement>(&ev).open())>
            <summary class="button primary" data-test="new-automation">"New automation"</summary>
            <form on:submit=submit class="stack" aria-label="New automation">
                <label>"Name" <input name="name" bind:value=name required maxlength="200" data-test="automation-name" /></label>
                <label>"Prompt" <textarea name="prompt" bind:value=prompt required rows="3" data-test="automation-prompt"></textarea></label>
                <label>"When"
                    <select bind:value=choice name="when" data-test="automation-when">{options}</select>
                </label>
                <Show when=move || choice.get() == "cron">
                    <label>"Cron expression (minute hour day month weekday)"
                        <input name="cron" bind:value=cron data-test="automation-cron" />
                    </label>
                </Show>
                <Show when=move || choice.get() == "minutes">
                    <label>"Minutes between runs"
                        <input name="minutes" type="number" min="1" bind:value=minutes data-test="automation-minutes" />
                    </label>
                </Show>
                <label>"Time zone"
                    <input name="timezone" bind:value=timezone placeholder="this computer's (e.g. Europe/Paris)" data-test="automation-timezone" />
                </label>
                <SchedulePreview preview />
                <label class="check">
                    <input type="checkbox" bind:checked=auto_approve />
                    " Auto-approve writes and commands (otherwise each run waits for you)"
                </label>
                <button type="submit" class="primary" data-test="create-automation"
                    disabled=move || create.pending().get()>"Create automation"</button>
                <ErrorLine error=failure(create) />
            </form>
        </details>
    }
}

#[component]
fn SchedulePreview(
    preview: Resource<Result<crate::protocol::SchedulePreview, crate::error::ServiceError>>,
) -> impl IntoView {
    view! {
        <div class="schedule-preview" aria-live="polite" data-test="schedule-preview">
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match preview.await {
                        Ok(preview) => view! {
                            <p><strong>{preview.description}</strong></p>
                            <p class="muted">"Next runs:"</p>
                            <ul class="next-runs">
                                {preview.next_runs.iter().take(3).map(|run| view! {
                                    <li><time datetime=run.clone()>{run_in_words(run)}</time></li>
                                }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <p class="error">{error.message.clone()}</p> }.into_any(),
                    }
                })}
            </Transition>
        </div>
    }
}
