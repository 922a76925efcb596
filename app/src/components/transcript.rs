use super::{
    receipt::{receipt, text, Disclosure},
    review_card,
    settled_message::settled_message,
    MessageActions,
};
use crate::{
    live::{Entry, Live},
    protocol::{ItemKind, ItemStatus, TurnItemRecord},
};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

/// Older items added per step (scrolling near the top, or the button). The
/// page opens on its newest `live::WINDOW` items.
const PAGE: usize = 100;

/// The thread's items in order; streamed text appears as it arrives.
#[component]
pub fn Transcript() -> AnyView {
    let live = expect_context::<Live>();
    let section = NodeRef::<leptos::html::Section>::new();
    // Positions here count every item of the thread; `live.items` starts
    // `live.missing` items in until the older ones are fetched. The page's
    // snapshot begins at `window_start`, so the server and the browser
    // render the same items and hydration matches.
    let window_start = live.missing.get_untracked();
    let local = move |position: usize| position.saturating_sub(live.missing.get_untracked());
    // The first item shown.
    let shown_from = RwSignal::new(window_start);
    let kept_query: Vec<(&'static str, String)> = use_query_map().with_untracked(|q| {
        ["q", "archived"]
            .into_iter()
            .filter_map(|name| q.get(name).map(|value| (name, value)))
            .collect()
    });
    // Older items shown since, as `[start, end)` ranges, oldest first. Each
    // page renders once in a block of its own: adding one never touches the
    // others, and the browser skips the layout of those off screen.
    let pages = RwSignal::new(Vec::<(usize, usize)>::new());
    // Follows the newest text while the reader is at the bottom; scrolling
    // up to read stops following until they scroll back down. Scroll events
    // of our own jumps are ignored: items sized by content-visibility grow
    // once on screen, so a jump can land short of the bottom.
    let following = StoredValue::new(true);
    let jumped = StoredValue::new(false);
    // Adds a page of older items above, keeping what the reader sees where
    // it is on screen: the first item shown is measured in the content
    // (not on screen, so the reader's own scrolling meanwhile stands), and
    // the scroll moves by as much as the content above it grew.
    // Returns false when the older items have not arrived (yet).
    let show_earlier = move || {
        let start = shown_from.get_untracked();
        if start == 0 || live.missing.get_untracked() > start.saturating_sub(PAGE) {
            return false;
        }
        let measured = section.get_untracked().and_then(|el| {
            let anchor = el.query_selector("[data-test=item]").ok().flatten()?;
            let before = content_offset(&el, &anchor);
            Some((anchor, before))
        });
        let page = (start.saturating_sub(PAGE), start);
        if page.0 == 0 {
            keep_focus(section);
        }
        pages.update(|pages| pages.insert(0, page));
        shown_from.set(page.0);
        if let Some((anchor, before)) = measured {
            hold(section, jumped, anchor, before, 4);
        }
        true
    };
    let on_earlier = move |ev: leptos::ev::SubmitEvent| {
        if show_earlier() {
            ev.prevent_default();
        }
    };
    let near_top = move || {
        section
            .try_get_untracked()
            .flatten()
            .is_some_and(|el| el.scroll_top() < el.client_height())
    };
    let on_scroll = move |_| {
        if jumped.get_value() {
            jumped.set_value(false);
            return;
        }
        if let Some(Some(el)) = section.try_get_untracked() {
            let from_bottom = el.scroll_height() - el.scroll_top() - el.client_height();
            following.set_value(from_bottom < 48);
            if el.scroll_top() < el.client_height() {
                show_earlier();
            }
        }
    };
    // At the very top a wheel turn scrolls nothing, so no scroll event
    // comes to bring the next page: the turn itself asks for it. (Anywhere
    // else the scroll event does, and asking twice would add two pages.)
    #[cfg(feature = "hydrate")]
    on_wheel_up(section, move || {
        if section
            .get_untracked()
            .is_some_and(|el| el.scroll_top() <= 0)
        {
            show_earlier();
        }
    });
    let to_bottom = move || {
        // The callback may run after the thread view is gone.
        if let Some(Some(el)) = section.try_get_untracked() {
            if el.scroll_height() - el.scroll_top() - el.client_height() > 1 {
                jumped.set_value(true);
                el.set_scroll_top(el.scroll_height());
            }
        }
    };
    // The reader may reach the top before the older items arrive (one
    // who has not scrolled up is following the newest, not reading back).
    Effect::new(move |_| {
        if live.missing.get() == 0 && !following.get_value() && near_top() {
            show_earlier();
        }
    });
    Effect::new(move |_| {
        live.cursor.track();
        live.items.track();
        if following.get_value() {
            request_animation_frame(move || {
                to_bottom();
                request_animation_frame(to_bottom);
            });
        }
    });
    view! {
        <section class="transcript" node_ref=section tabindex="-1" aria-label="Transcript" data-test="transcript" on:click=copy_code on:scroll=on_scroll>
            <Show when=move || live.items.with(Vec::is_empty) && shown_from.get() == 0>
                <p class="muted">"Nothing here yet. Write a prompt below to start."</p>
            </Show>
            <Show when=move || { shown_from.get() > 0 }>
                <form class="earlier" method="get" on:submit=on_earlier>
                    <input type="hidden" name="from" value=move || shown_from.get().saturating_sub(PAGE) />
                    // A GET form replaces the query: keep the rail's.
                    {kept_query.clone().into_iter().map(|(name, value)| view! { <input type="hidden" name=name value=value /> }).collect_view()}
                    <button type="submit" data-test="earlier">
                        {move || earlier_label(shown_from.get())}
                    </button>
                </form>
            </Show>
            // Pages index the item list by position: right while items are
            // only ever appended (`Live::reset` keeps the order, and drops
            // fetched older items together with `missing`).
            <For each=move || pages.get() key=|page| page.0 let:page>
                <div class="page">
                    {live.items.with_untracked(|items| {
                        let end = local(page.1).min(items.len());
                        let start = local(page.0).min(end);
                        items[start..end].iter().map(|&entry| view! { <ItemView entry /> }).collect_view()
                    })}
                </div>
            </For>
            // Only the newest items are a live region: a page of older ones
            // coming in is not news to announce.
            <div class="newest" aria-live="polite">
                <For each=move || { let start = window_start.saturating_sub(live.missing.get()); live.items.with(|items| items[start.min(items.len())..].to_vec()) } key=|entry| entry.id.get_value() let:entry>
                    <ItemView entry />
                </For>
            </div>
        </section>
    }
    .into_any()
}

/// Calls `up` on each wheel turn upwards over `section`. A passive
/// listener (`on:wheel` is not one): the browser never waits for it to
/// scroll the transcript.
#[cfg(feature = "hydrate")]
fn on_wheel_up(section: NodeRef<leptos::html::Section>, up: impl Fn() + 'static) {
    use leptos::wasm_bindgen::{closure::Closure, JsCast};
    use leptos::web_sys::{AddEventListenerOptions, WheelEvent};
    let listener = Closure::<dyn Fn(WheelEvent)>::new(move |ev: WheelEvent| {
        if ev.delta_y() < 0.0 {
            up();
        }
    });
    let function = listener
        .as_ref()
        .unchecked_ref::<leptos::web_sys::js_sys::Function>()
        .clone();
    // JS values stay on this thread: local storage, dropped at clean-up.
    let listener = StoredValue::new_local(Some(listener));
    let function = StoredValue::new_local(function);
    let target = StoredValue::new_local(None::<leptos::web_sys::Element>);
    Effect::new(move |_| {
        if let Some(el) = section.get() {
            let options = AddEventListenerOptions::new();
            options.set_passive(true);
            let _ = function.with_value(|f| {
                el.add_event_listener_with_callback_and_add_event_listener_options(
                    "wheel", f, &options,
                )
            });
            target.set_value(Some(el.into()));
        }
    });
    on_cleanup(move || {
        if let (Some(Some(el)), Some(f)) = (target.try_get_value(), function.try_get_value()) {
            let _ = el.remove_event_listener_with_callback("wheel", &f);
        }
        listener.try_update_value(|l| l.take());
    });
}

/// The "Show earlier" button leaves with the last page, by a press or by
/// scrolling: if it has the focus, the transcript takes it rather than
/// letting it fall to <body>.
fn keep_focus(section: NodeRef<leptos::html::Section>) {
    let Some(el) = section.get_untracked() else {
        return;
    };
    let on_button = document()
        .active_element()
        .is_some_and(|active| active.closest("form.earlier").ok().flatten().is_some());
    if on_button {
        let _ = el.focus();
    }
}

/// Where `item` sits in the scrolled content of `section`.
fn content_offset(section: &leptos::web_sys::Element, item: &leptos::web_sys::Element) -> f64 {
    item.get_bounding_client_rect().top() - section.get_bounding_client_rect().top()
        + f64::from(section.scroll_top())
}

/// Scrolls by as much as `anchor` moved in the content, for a few frames:
/// the new items are in the DOM by the next one, and those that then come
/// near the screen take their real size (content-visibility) a frame later.
fn hold(
    section: NodeRef<leptos::html::Section>,
    jumped: StoredValue<bool>,
    anchor: leptos::web_sys::Element,
    last: f64,
    frames: u8,
) {
    request_animation_frame(move || {
        let Some(Some(el)) = section.try_get_untracked() else {
            return;
        };
        let now = content_offset(&el, &anchor);
        let shift = (now - last).round() as i32;
        if shift != 0 {
            let was = el.scroll_top();
            el.set_scroll_top(was + shift);
            // Only a scroll that happened sends an event to ignore.
            if el.scroll_top() != was {
                jumped.set_value(true);
            }
        }
        if frames > 1 {
            hold(section, jumped, anchor, now, frames - 1);
        }
    });
}

fn earlier_label(hidden: usize) -> String {
    let step = hidden.min(PAGE);
    match hidden {
        1 => "Show 1 earlier item".to_string(),
        _ if step == hidden => format!("Show {hidden} earlier items"),
        _ => format!("Show {step} earlier items ({hidden} in all)"),
    }
}

/// Settled items never change again: they render once with no reactive
/// parts (a long thread hydrates thousands). A running item re-renders when
/// its record changes and streams its text into one text node.
#[component]
fn ItemView(entry: Entry) -> AnyView {
    if entry
        .record
        .with_untracked(|r| r.status != ItemStatus::InProgress)
    {
        return entry
            .record
            .with_untracked(|r| item(entry, r, Disclosure::default()));
    }
    // Reasoning or a receipt the reader opened stays open when it re-renders.
    let details = NodeRef::<leptos::html::Details>::new();
    (move || {
        let open = details.get_untracked().is_some_and(|d| d.open());
        entry.record.with(|r| item(entry, r, (details, open)))
    })
    .into_any()
}

fn item(entry: Entry, record: &TurnItemRecord, details: Disclosure) -> AnyView {
    let kind = record.kind;
    let running = record.status == ItemStatus::InProgress;
    let body = match kind {
        ItemKind::UserMessage => view! {
            <div class="bubble user"><p class="plain">{text(entry, running)}</p></div>
            <MessageActions entry />
        }.into_any(),
        ItemKind::AgentMessage => view! { <div class="bubble agent">{message(entry, running)}</div> }.into_any(),
        ItemKind::AgentReasoning => view! {
            <details class="reasoning" node_ref=details.0 open=details.1><summary>"Reasoning"</summary><p class="plain">{text(entry, running)}</p></details>
        }.into_any(),
        ItemKind::ContextCompaction => view! {
            <details class="compaction" node_ref=details.0 open=details.1><summary>"Conversation compacted"</summary>{message(entry, running)}</details>
        }.into_any(),
        ItemKind::Status | ItemKind::Error => view! {
            <p class="notice" class:error=kind == ItemKind::Error role="status">{text(entry, running)}</p>
        }.into_any(),
        ItemKind::ReviewFinding => review_card(entry, true),
        ItemKind::ReviewAction => review_card(entry, false),
        _ => receipt(entry, record, details),
    };
    view! { <div class="item" data-kind=kind.as_str() data-status=record.status.as_str() data-test="item">{body}</div> }
        .into_any()
}

/// Plain text while streaming (cheap per delta), sanitized Markdown once done.
fn message(entry: Entry, running: bool) -> AnyView {
    if running {
        view! { <p class="plain streaming">{text(entry, true)}</p> }.into_any()
    } else {
        settled_message(entry)
    }
}

/// Copies a code block when its button is clicked (buttons come with the
/// rendered Markdown, so one listener serves them all).
fn copy_code(ev: leptos::ev::MouseEvent) {
    #[cfg(feature = "hydrate")]
    {
        use leptos::wasm_bindgen::JsCast;
        let Some(target) = ev
            .target()
            .and_then(|t| t.dyn_into::<leptos::web_sys::Element>().ok())
        else {
            return;
        };
        if !target.class_list().contains("copy") {
            return;
        }
        let code = target
            .parent_element()
            .and_then(|block| block.query_selector("pre").ok().flatten());
        if let Some(text) = code.and_then(|pre| pre.text_content()) {
            let _ = window().navigator().clipboard().write_text(&text);
            target.set_text_content(Some("Copied"));
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = ev;
}
