//! `/automations`: prompts run on a schedule. The form previews a schedule
//! in words before it is saved; each automation shows its next run, its
//! latest runs (each a task, linking to its thread), and run now, pause,
//! resume and delete. The list refreshes while the page is open.

use crate::{
    api::{automation_action, load_automations},
    components::{poll_every, row_action, AutomationForm, AutomationItem, ErrorNotice},
};
use leptos::prelude::*;
use leptos_meta::Title;

const REFRESH: std::time::Duration = std::time::Duration::from_secs(2);

#[component]
pub fn Automations() -> impl IntoView {
    let tick = poll_every(REFRESH);
    let cards = Resource::new(move || tick.get(), |_| load_automations());
    let changed = Callback::new(move |()| tick.update(|n| *n = n.wrapping_add(1)));
    // Owned here, not by the rows the poll rebuilds (components/keyed_action.rs).
    let act = row_action(automation_action);
    let confirming = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if let Some(Ok(())) = act.value().get() {
            changed.run(());
        }
    });
    view! {
        <Title text="Automations · codewhale" />
        <section class="background-page" aria-labelledby="automations-title">
            <h1 id="automations-title">"Automations"</h1>
            <p class="muted">
                "A prompt run on a schedule, each run a task on a new thread. Runs missed while "
                "codewhale was not running are made up once when it starts."
            </p>
            <AutomationForm changed />
            <Transition fallback=|| view! { <p class="muted">"Loading automations…"</p> }>
                {move || Suspend::new(async move {
                    match cards.await {
                        Ok(list) if list.is_empty() => view! {
                            <p class="muted" data-test="no-automations">"No automations yet."</p>
                        }.into_any(),
                        Ok(list) => view! {
                            <ul class="background-list" data-test="automation-list">
                                {list.into_iter().map(|card| view! { <AutomationItem card act confirming /> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <ErrorNotice message=format!("Could not load automations: {error}") /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}
