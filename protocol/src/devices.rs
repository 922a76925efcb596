//! Phones and other paired devices: their records, renaming them, and the
//! one-time pairing links that create them.

use serde::{de::Error as _, Deserialize, Deserializer, Serialize};

/// A paired device. Its session secret is never part of it (the server
/// keeps only a hash).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceRecord {
    pub id: String,
    /// Editable; first guessed from the User-Agent (or the pairing label).
    pub name: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub user_agent: Option<String>,
    pub created_at: String,
    pub last_seen_at: String,
    /// The peer address of its latest request.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub last_address: Option<String>,
    /// True for the device making this request.
    #[serde(default)]
    pub current: bool,
}

/// `PATCH /v1/devices/{id}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PatchDevice {
    pub name: String,
}

/// `POST /v1/devices/pairings`: mint a one-time pairing link.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreatePairing {
    /// Seconds the link stays usable (default 300, at most 3600).
    #[serde(default, deserialize_with = "whole_number")]
    pub ttl_seconds: Option<u64>,
    /// The name the paired device starts with.
    #[serde(default)]
    pub label: Option<String>,
}

/// A minted pairing link. `url` is the secret: it works once, until
/// `expires_at`, and is shown only to whoever minted it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairingCreated {
    pub url: String,
    pub expires_at: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub label: Option<String>,
    /// The QR code of `url` as a standalone SVG document.
    pub qr_svg: String,
    /// The certificate's SHA-256 fingerprint when served over a
    /// self-signed certificate (compare it on the phone).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub tls_fingerprint: Option<String>,
}

/// `DELETE /v1/devices/{id}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceRevoked {
    pub id: String,
    pub revoked: bool,
}

/// A whole number, however JSON spells it: `300` or `300.0` (JSON Schema's
/// `integer`, which the API document promises, admits both).
pub(crate) fn whole_number<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    let Some(number) = Option::<serde_json::Number>::deserialize(deserializer)? else {
        return Ok(None);
    };
    let whole = number.as_u64().or_else(|| {
        number
            .as_f64()
            .filter(|f| f.fract() == 0.0 && (0.0..=u64::MAX as f64).contains(f))
            .map(|f| f as u64)
    });
    whole
        .map(Some)
        .ok_or_else(|| D::Error::custom(format!("expected a whole number, got {number}")))
}

#[cfg(test)]
mod tests {
    use super::CreatePairing;

    #[test]
    fn a_ttl_is_a_whole_number_however_it_is_written() {
        let ttl = |json: &str| serde_json::from_str::<CreatePairing>(json).map(|p| p.ttl_seconds);
        assert_eq!(ttl(r#"{"ttl_seconds": 300}"#).unwrap(), Some(300));
        assert_eq!(ttl(r#"{"ttl_seconds": 300.0}"#).unwrap(), Some(300));
        assert_eq!(ttl(r#"{"ttl_seconds": null}"#).unwrap(), None);
        assert_eq!(ttl("{}").unwrap(), None);
        for bad in ["300.5", "-1", "\"300\"", "1e300"] {
            assert!(
                ttl(&format!(r#"{{"ttl_seconds": {bad}}}"#)).is_err(),
                "{bad} is refused"
            );
        }
    }
}
