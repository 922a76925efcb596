//! `/mcp`: the MCP servers of `config.toml` whose tools the model may call
//! — each with where it stands (idle until first used, starting, ready,
//! failed and why), switched on or off, trusted or asked for, started
//! again, removed, and its tools listed; and a form to add one. Variable
//! and header values are never shown, only their names. The list reads the
//! same with JavaScript off.

use crate::{
    api::{
        add_mcp_server, load_mcp_servers, mcp_server_command, mcp_server_tools, McpCommand,
        McpDraft,
    },
    components::{failure, row_action, row_error, row_pending, ErrorLine, ErrorNotice, RowAction},
    protocol::{McpServerRecord, McpServerStatus, McpTransport},
};
use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn McpServersPage() -> impl IntoView {
    let version = RwSignal::new(0u32);
    let servers = Resource::new(move || version.get(), |_| load_mcp_servers());
    let reload = move || version.update(|n| *n = n.wrapping_add(1));
    let command = row_action(|name, command: McpCommand| mcp_server_command(name, command));
    Effect::new(move |_| {
        if let Some(Ok(())) = command.value().get() {
            reload();
        }
    });
    view! {
        <Title text="MCP servers · codewhale" />
        <section class="background-page" aria-labelledby="mcp-title">
            <h1 id="mcp-title">"MCP servers"</h1>
            <p class="muted">
                "Servers in " <code>"config.toml"</code> " whose tools the model may call, as "
                <code>"mcp__server__tool"</code> ". Each starts the first time a turn needs it. "
                "A call waits for your approval unless you trust the server."
            </p>
            <AddForm added=Callback::new(move |()| reload()) />
            <Transition fallback=|| view! { <p class="muted">"Loading servers…"</p> }>
                {move || Suspend::new(async move {
                    match servers.await {
                        Ok(list) if list.is_empty() => view! {
                            <p class="muted" data-test="no-mcp-servers">"No MCP servers yet."</p>
                        }.into_any(),
                        Ok(list) => view! {
                            <ul class="background-list" data-test="mcp-server-list">
                                {list.into_iter().map(|server| view! { <ServerRow server command /> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <ErrorNotice message=format!("Could not load MCP servers: {error}") /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

fn status_word(status: McpServerStatus) -> &'static str {
    match status {
        McpServerStatus::Disabled => "disabled",
        McpServerStatus::Idle => "idle",
        McpServerStatus::Starting => "starting",
        McpServerStatus::Ready => "ready",
        McpServerStatus::Failed => "failed",
    }
}

#[component]
fn ServerRow(server: McpServerRecord, command: RowAction<McpCommand>) -> impl IntoView {
    let name = server.name.clone();
    let pending = row_pending(command, name.clone());
    let state = status_word(server.status);
    let reached = match server.transport {
        McpTransport::Stdio => std::iter::once(server.command.clone().unwrap_or_default())
            .chain(server.args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" "),
        McpTransport::Http => server.url.clone().unwrap_or_default(),
    };
    let values = match server.transport {
        McpTransport::Stdio if !server.env.is_empty() => {
            Some(format!("variables: {}", server.env.join(", ")))
        }
        McpTransport::Http if !server.headers.is_empty() => {
            Some(format!("headers: {}", server.headers.join(", ")))
        }
        _ => None,
    };
    let button = move |label: &'static str, what: McpCommand, test: &'static str| {
        let name = name.clone();
        let aria = format!("{label} {name}");
        view! {
            <button type="button" data-test=test disabled=pending aria-label=aria
                on:click=move |_| { command.dispatch((name.clone(), what)); }>{label}</button>
        }
    };
    let (enabled, trusted) = (server.enabled, server.trusted);
    view! {
        <li class="background-item" data-test="mcp-server" data-server=server.name.clone() data-status=state>
            <div class="background-facts">
                <span class=format!("status-chip status-{state}") data-test="mcp-status">{state}</span>
                <span class="background-title">{server.name.clone()}</span>
                <span class="chip muted">{if trusted { "trusted" } else { "asks first" }}</span>
                {server.tool_count.map(|n| view! { <span class="chip muted">{format!("{n} tools")}</span> })}
            </div>
            <p class="muted"><code>{reached}</code></p>
            {values.map(|v| view! { <p class="muted" data-test="mcp-values">{v}</p> })}
            {server.last_error.clone().map(|error| view! {
                <p class="muted" data-test="mcp-last-error">"Last error: " {error}</p>
            })}
            <div class="actions">
                {button("Restart", McpCommand::Reload, "mcp-reload")}
                {if enabled { button("Disable", McpCommand::Disable, "mcp-toggle") } else { button("Enable", McpCommand::Enable, "mcp-toggle") }}
                {if trusted { button("Ask first", McpCommand::Distrust, "mcp-trust") } else { button("Trust", McpCommand::Trust, "mcp-trust") }}
                {button("Remove", McpCommand::Delete, "mcp-delete")}
            </div>
            <ErrorLine error=row_error(command, server.name.clone()) />
            <Tools name=server.name.clone() />
        </li>
    }
}

/// "Tools": listed on request, since listing starts the server.
#[component]
fn Tools(name: String) -> impl IntoView {
    let list = Action::new(move |name: &String| mcp_server_tools(name.clone()));
    let label = format!("Show the tools of {name}");
    view! {
        <div class="stack">
            <button type="button" data-test="mcp-show-tools" aria-label=label
                disabled=move || list.pending().get()
                on:click=move |_| { list.dispatch(name.clone()); }>"Show tools"</button>
            {move || list.value().get().and_then(Result::ok).map(|tools| if tools.is_empty() {
                view! { <p class="muted" data-test="mcp-no-tools">"No tools (the server is not ready: see its status)."</p> }.into_any()
            } else {
                view! {
                    <ul class="muted" data-test="mcp-tools">
                        {tools.into_iter().map(|tool| view! {
                            <li data-test="mcp-tool"><code>{tool.exposed_name}</code>
                                {if tool.read_only { " (read-only)" } else { "" }}
                                " " {tool.description}</li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            })}
            <ErrorLine error=failure(list) />
        </div>
    }
}

/// "Add a server": a command line's program (with its arguments) or an
/// http(s) URL; variables or headers as NAME=value lines.
#[component]
fn AddForm(added: Callback<()>) -> impl IntoView {
    let draft = RwSignal::new(McpDraft::default());
    let add = Action::new(move |draft: &McpDraft| add_mcp_server(draft.clone()));
    let done = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if let Some(Ok(name)) = add.value().get() {
            draft.set(McpDraft::default());
            done.set(Some(format!("Added {name}.")));
            added.run(());
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        done.set(None);
        add.dispatch(draft.get_untracked());
    };
    let field = move |get: fn(&McpDraft) -> &String, set: fn(&mut McpDraft, String)| {
        (
            move || get(&draft.read()).clone(),
            move |ev: leptos::ev::Event| draft.update(|d| set(d, event_target_value(&ev))),
        )
    };
    let (name, on_name) = field(|d| &d.name, |d, v| d.name = v);
    let (target, on_target) = field(|d| &d.target, |d, v| d.target = v);
    let (args, on_args) = field(|d| &d.args, |d, v| d.args = v);
    let (values, on_values) = field(|d| &d.values, |d, v| d.values = v);
    view! {
        <details class="card automation-form">
            <summary class="button primary" data-test="add-mcp-server">"Add a server"</summary>
            <form on:submit=submit class="stack" aria-label="Add an MCP server">
                <label>"Name (letters, digits and -)"
                    <input name="name" prop:value=name on:input=on_name required data-test="mcp-name" />
                </label>
                <label>"Program to run, or an http(s) URL"
                    <input name="target" prop:value=target on:input=on_target required
                        placeholder="npx" data-test="mcp-target" />
                </label>
                <label>"Arguments, one per line (for a program)"
                    <textarea name="args" prop:value=args on:input=on_args rows="3" data-test="mcp-args" />
                </label>
                <label>"Variables (program) or headers (URL), NAME=value per line; never shown again"
                    <textarea name="values" prop:value=values on:input=on_values rows="2" data-test="mcp-values-input" />
                </label>
                <label class="check">
                    <input type="checkbox" prop:checked=move || draft.read().trusted
                        on:change=move |ev| draft.update(|d| d.trusted = event_target_checked(&ev))
                        data-test="mcp-trusted" />
                    " Trust it: its tools run without asking"
                </label>
                <button type="submit" class="primary" data-test="mcp-add-submit"
                    disabled=move || add.pending().get()>"Add"</button>
                <p class="muted" role="status" data-test="mcp-added">{move || done.get()}</p>
                <ErrorLine error=failure(add) />
            </form>
        </details>
    }
}
