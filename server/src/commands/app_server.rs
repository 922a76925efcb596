//! `codewhale app-server --http|--mobile` (and its alias `codewhale serve`):
//! the runtime API for SDKs, scripts and other local clients; with
//! `--mobile`, also for phones on the LAN (`mobile.rs` says how they find it).

use super::{current_dir, mobile, runtime_options};
use crate::{
    cli::{HttpArgs, TlsMode},
    clock::Clock,
    config::{Config, DEFAULT_DEVICE_SESSION_DAYS},
    error::RunError,
    home,
    http::{
        auth::{HostPolicy, RuntimeToken, WebAuth},
        cors,
        lan::url_host,
        pairing::PairingLinks,
        serve::{bind, serve},
        state::{AppState, EdgeOptions},
        tls::{Tls, TlsSource},
    },
    runtime::{approvals::DEFAULT_TIMEOUT, Runtime},
};
use std::{net::IpAddr, sync::Arc};

pub async fn run(args: HttpArgs, insecure: bool) -> Result<(), RunError> {
    let workers = args.worker_threads();
    let host = args.bind_host();
    let loopback = is_loopback(&host);
    if insecure && !loopback {
        return Err(RunError::Config(format!(
            "no-auth mode is only allowed on a loopback bind (got --host {host}); use --auth-token instead"
        )));
    }
    let token = if insecure {
        None
    } else {
        let explicit = args.auth_token.is_some()
            || ["CODEWHALE_RUNTIME_TOKEN", "DEEPSEEK_RUNTIME_TOKEN"]
                .iter()
                .any(|v| std::env::var(v).is_ok_and(|t| !t.trim().is_empty()));
        if !explicit {
            eprintln!(
                "codewhale: no runtime token given; /v1 is locked with a generated token that is never shown. \
                 Pass --auth-token or set CODEWHALE_RUNTIME_TOKEN to use the API{}.",
                if args.mobile { " and `codewhale pair`" } else { "" }
            );
        }
        Some(RuntimeToken::resolve(args.auth_token.clone())?)
    };
    let home = home::resolve()?;
    let config = Config::load(&home)?;
    let cors_origins = cors::origins(&args.cors_origins, &config.runtime_api.cors_origins)?;
    let allowed_hosts =
        HostPolicy::configured(&args.allowed_hosts, &config.runtime_api.allowed_hosts)?;
    // A name other than loopback (a tunnel's, say) would carry requests from
    // elsewhere to a server that asks nobody for a token.
    if insecure && !HostPolicy::only_loopback(&allowed_hosts) {
        return Err(RunError::Config(
            "no-auth mode only answers to loopback names; drop --allowed-host (and \
             [runtime_api] allowed_hosts) or use --auth-token instead"
                .into(),
        ));
    }
    let tls = match (&args.tls_cert, &args.tls_key, args.tls) {
        (Some(cert), Some(key), _) => Some(TlsSource::Files {
            cert: cert.clone(),
            key: key.clone(),
        }),
        (_, _, Some(TlsMode::SelfSigned)) => Some(TlsSource::SelfSigned),
        _ => None,
    }
    .map(|source| Tls::load(source, &home, &allowed_hosts))
    .transpose()?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let listener = bind(&host, args.port).await?;
    crate::http::router::warm_up();
    let port = listener.local_addr().map_err(RunError::Serve)?.port();
    let options = runtime_options(home.clone(), &config, current_dir()?, DEFAULT_TIMEOUT);
    let runtime = Arc::new(Runtime::open(options).await?);
    super::run_background(&runtime, &config);
    let local_url = format!("{scheme}://{}:{port}", url_host(local_host(&host)));
    let lan_urls = if args.mobile {
        mobile::lan_urls(scheme, &host, port)
    } else {
        Vec::new()
    };
    // The desktop's way into the workbench (and its "Pair a phone" button):
    // a one-time loopback sign-in, as `codewhale web` prints.
    let reaches_loopback = loopback || host_is_wildcard(&host);
    let web = (args.mobile && reaches_loopback && token.is_some())
        .then(|| WebAuth::new(scheme, port, Clock::default()));
    let pairing = args.mobile.then(|| PairingLinks {
        base_url: mobile::pairing_base(scheme, port, &allowed_hosts, &lan_urls, &local_url),
        tls_fingerprint: tls
            .as_ref()
            .filter(|t| t.self_signed)
            .map(|t| t.fingerprint.clone()),
        session_days: config
            .runtime_api
            .device_session_days
            .unwrap_or(DEFAULT_DEVICE_SESSION_DAYS),
    });
    let (web, launch_url) = match web {
        Some((web, capability)) => {
            let url = web.launch_url(&capability);
            (Some(web), Some(url))
        }
        None => (None, None),
    };
    let edge = EdgeOptions {
        bind_host: host.clone(),
        port,
        token,
        web,
        cors_origins,
        allowed_hosts,
        pairing,
        tls: tls.is_some(),
    };
    let state = AppState::new(runtime, edge);
    #[allow(clippy::print_stdout)]
    {
        println!("{local_url}");
    }
    eprintln!(
        "codewhale app-server: runtime API on {local_url}/v1 (store {}, {} workers{})",
        home.display(),
        workers,
        if insecure { ", NO AUTH" } else { "" }
    );
    if args.mobile {
        let first_pairing = match &state.pairing {
            Some(links) => Some(
                PairingLinks::create(
                    Some(links),
                    &state.runtime,
                    true, // the person at the terminal is the computer
                    protocol::CreatePairing::default(),
                )
                .map_err(|e| RunError::Config(e.to_string()))?,
            ),
            None => None,
        };
        mobile::announce(&mobile::Announcement {
            host: &host,
            local_url: &local_url,
            lan_urls: &lan_urls,
            workbench_link: launch_url.as_deref(),
            pairing: first_pairing.as_ref(),
            tls: tls.as_ref(),
        });
    }
    if args.mobile {
        sweep_device_sessions(state.runtime.clone());
    }
    serve(listener, state, tls.map(|t| t.config)).await
}

/// Device sessions past their expiry are deleted now and every hour (a
/// revoked device's session goes at once only if it is presented again).
fn sweep_device_sessions(runtime: Arc<Runtime>) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(3600));
        loop {
            every.tick().await;
            if let Err(error) = runtime.devices().delete_expired_sessions().await {
                tracing::warn!(%error, "cannot delete expired device sessions");
            }
        }
    });
}

fn is_loopback(host: &str) -> bool {
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn host_is_wildcard(host: &str) -> bool {
    host.parse::<IpAddr>().is_ok_and(|ip| ip.is_unspecified())
}

/// How this machine reaches the server: a wildcard bind through loopback.
fn local_host(host: &str) -> &str {
    match host {
        "0.0.0.0" => "127.0.0.1",
        "::" => "::1",
        other => other,
    }
}
