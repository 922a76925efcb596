//! `mock-provider [PORT]`: serves the scripted provider and prints its URL.

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let url = mock_provider::Mock::default().serve(port).await?;
    #[allow(clippy::print_stdout)]
    {
        println!("{url}");
    }
    tokio::signal::ctrl_c().await
}
