//! A scripted engine: plays a fixed list of steps through the real
//! TurnContext, so tests exercise the runtime's records and events exactly
//! as a model-backed engine would.

use codewhale::runtime::{
    engine::{Engine, Outcome, Route, TurnContext, TurnSettings},
    error::RuntimeError,
    turn_writer::ItemEnd,
};
use futures::future::BoxFuture;
use protocol::{ItemKind, ThreadRecord, Usage};

#[derive(Clone, Debug)]
pub enum Step {
    /// A reasoning item streamed in these pieces.
    Reason(Vec<String>),
    /// An agent message streamed in these pieces.
    Say(Vec<String>),
    /// Waits for a steer, then answers "steered: <prompt>".
    AwaitSteer,
    /// Opens a message and streams until interrupted; ends `Interrupted`.
    StreamUntilInterrupted,
    /// Ignores everything, forever (the runtime must stop it).
    Hang,
    /// Ends the turn failed.
    Fail(String),
    /// Panics.
    Crash,
}

pub struct Scripted {
    pub steps: Vec<Step>,
}

impl Scripted {
    pub fn new(steps: Vec<Step>) -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self { steps })
    }
}

pub fn pieces(text: &str) -> Vec<String> {
    text.split_inclusive(' ').map(str::to_string).collect()
}

const USAGE: Usage = Usage {
    input_tokens: 120,
    output_tokens: 30,
    cached_tokens: 100,
    reasoning_tokens: 7,
};

impl Engine for Scripted {
    fn check_ready(&self, _: &ThreadRecord, _: &TurnSettings) -> Result<Route, RuntimeError> {
        Ok(Route::default())
    }

    fn run(&self, mut turn: TurnContext) -> BoxFuture<'static, Outcome> {
        let steps = self.steps.clone();
        Box::pin(async move {
            for step in steps {
                match step {
                    Step::Reason(parts) => stream(&turn, ItemKind::AgentReasoning, parts).await,
                    Step::Say(parts) => stream(&turn, ItemKind::AgentMessage, parts).await,
                    Step::AwaitSteer => {
                        let Some(prompt) = turn.steers.recv().await else {
                            return Outcome::Failed {
                                error: "no steer".into(),
                                usage: USAGE,
                            };
                        };
                        stream(
                            &turn,
                            ItemKind::AgentMessage,
                            vec![format!("steered: {prompt}")],
                        )
                        .await;
                    }
                    Step::StreamUntilInterrupted => {
                        let id = turn.items.start(ItemKind::AgentMessage, "answer").await;
                        loop {
                            tokio::select! {
                                _ = turn.interrupt.changed() => return Outcome::Interrupted { usage: USAGE },
                                () = tokio::time::sleep(std::time::Duration::from_millis(5)) => {
                                    turn.items.delta(&id, "tick ").await;
                                }
                            }
                        }
                    }
                    Step::Hang => std::future::pending::<()>().await,
                    Step::Fail(error) => {
                        return Outcome::Failed {
                            error,
                            usage: USAGE,
                        }
                    }
                    Step::Crash => panic!("scripted crash"),
                }
            }
            Outcome::Completed { usage: USAGE }
        })
    }
}

async fn stream(turn: &TurnContext, kind: ItemKind, parts: Vec<String>) {
    let id = turn.items.start(kind, "").await;
    for part in &parts {
        turn.items.delta(&id, part.clone()).await;
    }
    turn.items.end(&id, ItemEnd::Completed, None, None).await;
}
