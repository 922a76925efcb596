use super::{ChangesPanel, FilesPanel};
use leptos::prelude::*;

/// The panels beside the transcript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    Changes,
    Files,
}

impl Panel {
    fn label(self) -> &'static str {
        match self {
            Panel::Changes => "Changes",
            Panel::Files => "Files",
        }
    }
}

/// The buttons that open and close the panels (one open at a time).
#[component]
pub fn PanelToggles(open: RwSignal<Option<Panel>>) -> AnyView {
    let toggle = move |panel: Panel| {
        view! {
            <button type="button" class="small" data-test=format!("open-{}", panel.label().to_lowercase())
                aria-controls="thread-panel" aria-expanded=move || (open.get() == Some(panel)).to_string()
                on:click=move |_| open.update(|o| *o = if *o == Some(panel) { None } else { Some(panel) })>
                {panel.label()}
            </button>
        }
    };
    view! {
        <div class="panel-toggles" role="group" aria-label="Panels">
            {toggle(Panel::Changes)}
            {toggle(Panel::Files)}
        </div>
    }
    .into_any()
}

/// The open panel. Opening moves focus to its heading, so keyboard users
/// land in it (once its content is there: it may come from a chunk);
/// Escape (anywhere in the panel) closes it.
#[component]
pub fn SidePanel(open: RwSignal<Option<Panel>>) -> AnyView {
    let aside = NodeRef::<leptos::html::Aside>::new();
    // Counts the panel contents that arrived (see `panel_body`).
    let arrived = RwSignal::new(0u32);
    Effect::new(move |_| {
        arrived.track();
        if open.get().is_some() {
            request_animation_frame(move || {
                let heading = aside
                    .get_untracked()
                    .and_then(|a| a.query_selector("h2").ok().flatten());
                if let Some(heading) = heading {
                    use leptos::wasm_bindgen::JsCast;
                    if let Ok(heading) = heading.dyn_into::<leptos::web_sys::HtmlElement>() {
                        let _ = heading.focus();
                    }
                }
            });
        }
    });
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        // The edit box and other inputs inside handle their own Escape.
        if ev.key() == "Escape" && !ev.default_prevented() {
            open.set(None);
        }
    };
    view! {
        <aside id="thread-panel" class="side-panel" node_ref=aside hidden=move || open.get().is_none() on:keydown=on_key>
            {move || open.get().map(|panel| view! {
                <button type="button" class="small close-panel" data-test="close-panel" on:click=move |_| open.set(None)>
                    {format!("Close {}", panel.label())}
                </button>
                {panel_body(panel, arrived)}
            })}
        </aside>
    }
    .into_any()
}

/// A panel's content. Panels open only on a click, so in the browser their
/// code (the diffs, the file browser, the code view) is a chunk of its own,
/// fetched the first time one opens.
fn panel_body(panel: Panel, arrived: RwSignal<u32>) -> AnyView {
    #[cfg(feature = "hydrate")]
    {
        Suspend::new(async move {
            let body = panel_in_chunk(panel).await;
            arrived.try_update(|n| *n = n.wrapping_add(1));
            body.unwrap_or_else(|_| super::code_unavailable("This panel's code"))
        })
        .into_any()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = arrived;
        panel_view(panel)
    }
}

fn panel_view(panel: Panel) -> AnyView {
    match panel {
        Panel::Changes => view! { <ChangesPanel /> }.into_any(),
        Panel::Files => view! { <FilesPanel /> }.into_any(),
    }
}

#[cfg(feature = "hydrate")]
#[leptos::wasm_split::wasm_split(thread_panels, wasm_split_path = ::leptos::wasm_split, fallible)]
fn panel_in_chunk(panel: Panel) -> Result<AnyView, leptos::wasm_split::SplitLoaderError> {
    Ok(panel_view(panel))
}
