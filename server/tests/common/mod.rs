//! Drives the real router (no socket) as `codewhale web` would build it.
#![allow(dead_code)]

use axum::{
    body::Body,
    extract::ConnectInfo,
    http::{header, Request, Response, StatusCode},
    Router,
};
use codewhale::{
    auth::{RuntimeToken, WebAuth},
    router, web,
};
use http_body_util::BodyExt;
use std::net::SocketAddr;
use tower::ServiceExt;

pub const PORT: u16 = 7878;
pub const ORIGIN: &str = "http://127.0.0.1:7878";
pub const TOKEN: &str = "cwrt_test_token_0123456789abcdef";

pub struct Harness {
    pub app: Router,
    pub capability: String,
}

impl Harness {
    pub fn new() -> Self {
        let token = RuntimeToken::resolve(Some(TOKEN.into())).expect("valid token");
        let (web, capability) = WebAuth::new(PORT);
        let state = web::app_state("127.0.0.1", PORT, Some(token), Some(web));
        Self {
            app: router::app(state),
            capability,
        }
    }

    pub fn bootstrap_path(&self) -> String {
        format!("/__codewhale/bootstrap/{}", self.capability)
    }

    /// Sends a request as if from `peer` (default loopback).
    pub async fn send(&self, request: Request<Body>) -> Reply {
        self.send_from(request, SocketAddr::from(([127, 0, 0, 1], 50000)))
            .await
    }

    pub async fn send_from(&self, mut request: Request<Body>, peer: SocketAddr) -> Reply {
        request.extensions_mut().insert(ConnectInfo(peer));
        let response = self.app.clone().oneshot(request).await.expect("infallible");
        Reply::read(response).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Request::get(path).body(Body::empty()).unwrap())
            .await
    }

    /// Signs in through the bootstrap link and returns the session cookie pair.
    pub async fn sign_in(&self) -> String {
        let reply = self.get(&self.bootstrap_path()).await;
        assert_eq!(reply.status, StatusCode::SEE_OTHER);
        let set_cookie = reply.header(header::SET_COOKIE.as_str()).expect("cookie");
        set_cookie.split(';').next().unwrap().to_string()
    }
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    async fn read(response: Response<Body>) -> Self {
        let (parts, body) = response.into_parts();
        let body = body.collect().await.expect("body").to_bytes().to_vec();
        Self {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("JSON body")
    }

    /// Every byte of the response, headers included.
    pub fn all_bytes(&self) -> String {
        let mut all = String::new();
        for (name, value) in &self.headers {
            all.push_str(&format!(
                "{name}: {}\n",
                String::from_utf8_lossy(value.as_bytes())
            ));
        }
        all.push_str(&String::from_utf8_lossy(&self.body));
        all
    }
}

pub fn post(path: &str) -> axum::http::request::Builder {
    Request::post(path).header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
}
