use super::{error_line::failure, relative_time, ErrorLine};
use crate::{
    api::{list_devices, rename_device, revoke_device},
    protocol::DeviceRecord,
};
use leptos::prelude::*;

/// Paired devices: name, last seen and from where; rename and revoke. The
/// list is server-rendered, so it reads the same without JavaScript.
#[component]
pub fn DevicesPanel() -> impl IntoView {
    let reload = RwSignal::new(0u32);
    let devices = Resource::new(move || reload.get(), |_| list_devices());
    let changed = Callback::new(move |()| reload.update(|n| *n += 1));
    view! {
        <section class="card devices" aria-labelledby="devices-title" data-test="devices">
            <h2 id="devices-title">"Paired devices"</h2>
            <Transition fallback=|| view! { <p class="muted">"Loading devices…"</p> }>
                {move || Suspend::new(async move {
                    match devices.await {
                        Ok(list) if list.is_empty() => view! {
                            <p class="muted" data-test="no-devices">"No phone is paired yet."</p>
                        }.into_any(),
                        Ok(list) => view! {
                            <ul class="device-list">
                                {list.into_iter().map(|device| view! { <DeviceRow device changed /> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <p class="error" role="alert">{error.to_string()}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn DeviceRow(device: DeviceRecord, changed: Callback<()>) -> impl IntoView {
    let id = StoredValue::new(device.id.clone());
    let name = RwSignal::new(device.name.clone());
    let editing = RwSignal::new(false);
    let confirming = RwSignal::new(false);
    let rename = Action::new(move |name: &String| rename_device(id.get_value(), name.clone()));
    let revoke = Action::new(move |_: &()| revoke_device(id.get_value()));
    Effect::new(move |_| {
        if let Some(Ok(_)) = rename.value().get() {
            editing.set(false);
            changed.run(());
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = revoke.value().get() {
            changed.run(());
        }
    });
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        rename.dispatch(name.get_untracked());
    };
    let seen = relative_time(&device.last_seen_at);
    let label = device.name.clone();
    view! {
        <li class="device" data-test="device" data-device=device.id.clone()>
            <div class="device-facts">
                <span class="device-name" data-test="device-name">{device.name.clone()}</span>
                {device.current.then(|| view! { <span class="chip" data-test="this-device">"this device"</span> })}
                <span class="muted" title=device.user_agent.clone().unwrap_or_default()>
                    "Last seen " <time datetime=device.last_seen_at.clone()>{seen}</time>
                    {device.last_address.clone().map(|address| format!(" from {address}"))}
                </span>
            </div>
            <Show when=move || editing.get()>
                <form class="device-rename" on:submit=save>
                    <label>"Name" <input bind:value=name maxlength="100" required /></label>
                    <button type="submit" class="primary" disabled=move || rename.pending().get()>"Save"</button>
                    <button type="button" on:click=move |_| editing.set(false)>"Cancel"</button>
                </form>
            </Show>
            <div class="actions">
                <button type="button" data-test="rename-device" on:click=move |_| editing.set(true)>"Rename"</button>
                <Show when=move || !confirming.get()
                    fallback=move || view! {
                        <button type="button" class="danger" data-test="confirm-revoke"
                            disabled=move || revoke.pending().get()
                            on:click=move |_| { revoke.dispatch(()); }>"Revoke now"</button>
                        <button type="button" on:click=move |_| confirming.set(false)>"Keep"</button>
                    }>
                    <button type="button" class="danger" data-test="revoke-device"
                        aria-label=format!("Revoke {label}") on:click=move |_| confirming.set(true)>"Revoke"</button>
                </Show>
            </div>
            <Show when=move || confirming.get()>
                <p class="muted">"Revoking signs this device out at once; it must be paired again to come back."</p>
            </Show>
            <ErrorLine error=failure(rename) />
            <ErrorLine error=failure(revoke) />
        </li>
    }
}
