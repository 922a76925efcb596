//! The instructions the thread's latest turn was given (the user's global
//! file, the project's AGENTS.md and CODEWHALE.md files): a chip in the
//! thread's header that opens into the list of files with their hashes.

use crate::{
    live::Live,
    protocol::{InstructionFile, InstructionScope},
};
use leptos::prelude::*;

#[component]
pub fn InstructionsChip() -> AnyView {
    let live = expect_context::<Live>();
    let files = Memo::new(move |_| {
        live.turns.with(|turns| {
            turns
                .last()
                .map(|t| t.instructions.clone())
                .unwrap_or_default()
        })
    });
    let label = move || match files.with(Vec::len) {
        0 => "No instruction files".to_string(),
        1 => "1 instruction file".to_string(),
        n => format!("{n} instruction files"),
    };
    view! {
        <li class="chip instructions" title="Instructions in effect (the latest turn's)" data-test="instructions">
            <details>
                <summary data-test="instructions-count">{label}</summary>
                <Show
                    when=move || files.with(|f| !f.is_empty())
                    fallback=|| view! {
                        <p class="instruction-note">"No AGENTS.md or CODEWHALE.md was found for the latest turn."</p>
                    }
                >
                    <ol class="instruction-files" aria-label="Instruction files, nearest last">
                        <For
                            each=move || files.get()
                            key=|file| (file.path.clone(), file.sha256.clone())
                            children=|file| view! { <FileLine file /> }
                        />
                    </ol>
                </Show>
            </details>
        </li>
    }
    .into_any()
}

#[component]
fn FileLine(file: InstructionFile) -> AnyView {
    let scope = match file.scope {
        InstructionScope::Global => "yours",
        InstructionScope::Project => "project",
    };
    let hash: String = file.sha256.chars().take(12).collect();
    let cut = file.truncated.then_some(" · cut to fit");
    view! {
        <li data-test="instruction-file">
            <code>{file.path}</code>
            <span class="instruction-note">" " {scope} " · " {file.bytes} " bytes · sha256 " <code title=file.sha256>{hash}</code>{cut}</span>
        </li>
    }
    .into_any()
}
