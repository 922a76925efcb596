use crate::{components::DevicesPanel, protocol::Workbench};
use leptos::prelude::*;
use leptos_meta::Title;

/// `/devices`: the devices paired so far (the top bar pairs new ones).
#[component]
pub fn Devices() -> impl IntoView {
    let mobile = expect_context::<Workbench>().mobile;
    view! {
        <Title text="Devices · codewhale" />
        <section class="devices-page" aria-labelledby="devices-page-title">
            <h1 id="devices-page-title">"Devices"</h1>
            {if mobile {
                view! {
                    <p class="muted">
                        "A paired phone opens "<code>"/mobile"</code>" on this server: threads, prompts, "
                        "approvals and questions, sized for a small screen. To add one, press "
                        <strong>"Pair a phone"</strong>" above."
                    </p>
                    <DevicesPanel />
                }
                .into_any()
            } else {
                view! {
                    <p class="notice">
                        "Phones cannot pair with this server: start it with "<code>"--mobile"</code>" to allow it."
                    </p>
                }
                .into_any()
            }}
        </section>
    }
}
