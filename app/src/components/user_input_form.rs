use super::{error_line::failure, ErrorLine};
use crate::{
    api::answer_user_input,
    live::Live,
    protocol::{Answer, AnswerUserInput, Question, UserInputRequest},
};
use leptos::prelude::*;
use serde_json::Value;
use std::collections::HashMap;

/// The model's questions. Every question must be answered before sending;
/// the answers go to the running turn only.
#[component]
pub fn UserInputForm(input: Value) -> AnyView {
    let live = expect_context::<Live>();
    let id = input["input_id"].as_str().unwrap_or_default().to_string();
    let request: UserInputRequest =
        crate::api::record(&input["request"]).unwrap_or(UserInputRequest {
            questions: Vec::new(),
        });
    let chosen = RwSignal::new(HashMap::<String, Vec<String>>::new());
    let missing = RwSignal::new(None::<String>);
    let questions = StoredValue::new(request.questions.clone());
    let send = Action::new(move |answers: &AnswerUserInput| {
        let thread = live.thread.with_untracked(|t| t.id.clone());
        answer_user_input(thread, id.clone(), answers.clone())
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let answers = chosen.get_untracked();
        let unanswered = questions.with_value(|qs| {
            qs.iter()
                .find(|q| {
                    answers
                        .get(&q.id)
                        .is_none_or(|v| v.iter().all(|a| a.trim().is_empty()))
                })
                .map(|q| q.question.clone())
        });
        missing.set(unanswered.clone());
        if unanswered.is_none() {
            send.dispatch(to_answers(&answers));
        }
    };
    view! {
        <form class="card user-input" aria-label="Questions from the agent" data-test="user-input" on:submit=submit>
            {request.questions.into_iter().map(|question| view! { <QuestionField question chosen /> }).collect_view()}
            {move || missing.get().map(|q| view! { <p class="error" role="alert">"Please answer: " {q}</p> })}
            <button type="submit" class="primary" disabled=move || send.pending().get()>"Send answers"</button>
            <ErrorLine error=failure(send) />
        </form>
    }
    .into_any()
}

#[component]
fn QuestionField(question: Question, chosen: RwSignal<HashMap<String, Vec<String>>>) -> AnyView {
    let qid = question.id.clone();
    let kind = if question.multi_select {
        "checkbox"
    } else {
        "radio"
    };
    let set = {
        let qid = qid.clone();
        move |value: String, on: bool, multi: bool| {
            chosen.update(|all| {
                let values = all.entry(qid.clone()).or_default();
                if !multi {
                    values.clear();
                }
                values.retain(|v| *v != value);
                if on {
                    values.push(value);
                }
            })
        }
    };
    let options = question.options.iter().map(|option| {
        let (label, set) = (option.label.clone(), set.clone());
        let multi = question.multi_select;
        view! {
            <label class="option">
                <input type=kind name=qid.clone() value=label.clone()
                    on:change=move |ev| set(label.clone(), event_target_checked(&ev), multi) />
                {option.label.clone()}
                {(!option.description.is_empty()).then(|| view! { <span class="muted">" — " {option.description.clone()}</span> })}
            </label>
        }
    }).collect_view();
    let free = question.allow_free_text.then(|| {
        let set = set.clone();
        view! { <input type="text" aria-label=question.question.clone() placeholder="Your answer"
        on:input=move |ev| set(event_target_value(&ev), true, false) /> }
    });
    view! {
        <fieldset class="question">
            <legend>{question.header.clone()} " " <span>{question.question.clone()}</span></legend>
            {options}
            {free}
        </fieldset>
    }
    .into_any()
}

fn to_answers(chosen: &HashMap<String, Vec<String>>) -> AnswerUserInput {
    let answers = chosen
        .iter()
        .flat_map(|(id, values)| {
            values
                .iter()
                .filter(|v| !v.trim().is_empty())
                .map(|v| Answer {
                    id: id.clone(),
                    label: v.clone(),
                    value: v.clone(),
                })
        })
        .collect();
    AnswerUserInput { answers }
}
