use crate::{
    api::create_thread,
    page_data::{PageData, RailRefresh},
    protocol::{CreateThread, Workbench},
    surface::Surface,
};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

/// The permission postures offered, and the thread settings they mean.
const POSTURES: [(&str, &str); 3] = [
    ("ask", "Ask before writes and commands"),
    ("auto", "Auto-approve writes and commands"),
    ("full", "Full access (yolo, may leave the workspace)"),
];

/// "New thread": workspace, model, mode and permission posture.
#[component]
pub fn NewThread() -> impl IntoView {
    let workbench = expect_context::<Workbench>();
    let workspace = RwSignal::new(workbench.workspace.clone());
    let model = RwSignal::new(String::new());
    let mode = RwSignal::new("agent".to_string());
    let posture = RwSignal::new("ask".to_string());
    let open = RwSignal::new(false);
    let refresh = expect_context::<RailRefresh>();
    let navigate = use_navigate();
    let surface = Surface::current();
    let create = Action::new(move |request: &CreateThread| create_thread(request.clone()));
    Effect::new(move |_| {
        if let Some(Ok(thread)) = create.value().get() {
            refresh.bump();
            open.set(false);
            navigate(&surface.thread_href(&thread.id), Default::default());
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        create.dispatch(request(
            &workspace.get(),
            &model.get(),
            &mode.get(),
            &posture.get(),
        ));
    };
    view! {
        <details class="new-thread" prop:open=open on:toggle=move |ev| open.set(event_target::<leptos::web_sys::HtmlDetailsElement>(&ev).open())>
            <summary class="button primary" data-test="new-thread">"New thread"</summary>
            <form on:submit=submit class="stack" aria-label="New thread">
                <label>"Workspace" <input name="workspace" bind:value=workspace required /></label>
                <ModelPicker model />
                <label>"Mode"
                    <select bind:value=mode name="mode">
                        <option value="agent">"Agent"</option>
                        <option value="plan">"Plan (read-only)"</option>
                        <option value="review">"Review (findings only)"</option>
                    </select>
                </label>
                <label>"Permissions"
                    <select bind:value=posture name="posture">
                        {POSTURES.map(|(value, label)| view! { <option value=value>{label}</option> }).collect_view()}
                    </select>
                </label>
                <button type="submit" class="primary" disabled=move || create.pending().get()>"Create thread"</button>
                {move || create.value().get().and_then(Result::err).map(|e| view! { <p class="error" role="alert">{e.to_string()}</p> })}
            </form>
        </details>
    }
    .into_any()
}

/// Models of the configured providers ("provider/model"), default first.
#[component]
fn ModelPicker(model: RwSignal<String>) -> AnyView {
    let providers = expect_context::<PageData>().providers;
    view! {
        <label>"Model"
            <select bind:value=model name="model">
                <option value="">"Default"</option>
                <Suspense fallback=|| ()>
                    {move || Suspend::new(async move {
                        providers.await.unwrap_or_default().into_iter().flat_map(|p| {
                            let ready = p.ready;
                            p.models.into_iter().map(move |m| {
                                let value = format!("{}/{m}", p.id);
                                let label = if ready { value.clone() } else { format!("{value} (no key)") };
                                view! { <option value=value>{label}</option> }
                            }).collect::<Vec<_>>()
                        }).collect_view()
                    })}
                </Suspense>
            </select>
        </label>
    }
    .into_any()
}

fn request(workspace: &str, model: &str, mode: &str, posture: &str) -> CreateThread {
    let (provider, model) = match model.split_once('/') {
        Some((p, m)) => (Some(p.to_string()), Some(m.to_string())),
        None => (None, None),
    };
    CreateThread {
        workspace: Some(workspace.trim().to_string()).filter(|w| !w.is_empty()),
        model_provider: provider,
        model,
        mode: Some(if posture == "full" { "yolo" } else { mode }.to_string()),
        auto_approve: Some(posture != "ask"),
        trust_mode: Some(posture == "full"),
        ..Default::default()
    }
}
