//! The client's address for rate limits: the peer address, or, when the peer is a trusted
//! reverse proxy (`HERALD_TRUSTED_PROXIES`), the right-most address of `X-Forwarded-For` that
//! is not itself a trusted proxy. Addresses a client writes into the header itself sit to the
//! left of what its proxies append, so they are never believed. Limits count a [`ClientNet`]:
//! an IPv6 client by its /64, since one host can take any of the 2^64 addresses in it.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};

use actix_web::HttpRequest;
use ipnet::IpNet;

/// The address rate limits should count `req` against.
pub fn client_ip(req: &HttpRequest, trusted: &[IpNet]) -> IpAddr {
    let peer = req
        .peer_addr()
        .map(|addr| addr.ip())
        .unwrap_or(IpAddr::from([0, 0, 0, 0]));
    let forwarded = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|value| value.to_str().ok());
    resolve(peer, forwarded, trusted)
}

/// Whether `req` came to Herald over https: its own connection, or, when the peer is a trusted
/// reverse proxy (the only one whose word counts), the scheme its `X-Forwarded-Proto` (the
/// value the nearest proxy wrote, the last) or `Forwarded: proto=` says.
pub fn came_over_https(req: &HttpRequest, trusted: &[IpNet]) -> bool {
    if req.uri().scheme_str() == Some("https") {
        return true;
    }
    let peer = req.peer_addr().map(|addr| canonical(addr.ip()));
    if !peer.is_some_and(|peer| trusted.iter().any(|net| net.contains(&peer))) {
        return false;
    }
    let headers = req.headers();
    let last = |name: &str| {
        headers
            .get_all(name)
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .next_back()
            .map(|v| v.trim().to_ascii_lowercase())
    };
    if let Some(proto) = last("x-forwarded-proto") {
        return proto == "https";
    }
    last("forwarded").is_some_and(|hop| {
        hop.split(';').any(|pair| {
            pair.trim()
                .strip_prefix("proto=")
                .is_some_and(|p| p.trim_matches('"') == "https")
        })
    })
}

/// The network rate limits should count `req` against: [`client_ip`] as a [`ClientNet`].
pub fn client_net(req: &HttpRequest, trusted: &[IpNet]) -> ClientNet {
    ClientNet::of(client_ip(req, trusted))
}

/// What a rate limit counts as one client: an IPv4 address, or the /64 an IPv6 address is in
/// (the allocation of one subscriber line or one host, per RFC 6177, where privacy addresses
/// and any number of others are free to take).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientNet(IpAddr);

impl ClientNet {
    /// The network of `ip` (an IPv4-mapped IPv6 address counts as its IPv4 address).
    pub fn of(ip: IpAddr) -> Self {
        match canonical(ip) {
            IpAddr::V6(v6) => {
                let [a, b, c, d, ..] = v6.segments();
                Self(IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0)))
            }
            v4 => Self(v4),
        }
    }
}

impl fmt::Display for ClientNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
            v4 => write!(f, "{v4}"),
        }
    }
}

/// [`client_ip`] on plain values: `forwarded` are the header's values in the order received.
pub fn resolve<'a>(
    peer: IpAddr,
    forwarded: impl Iterator<Item = &'a str>,
    trusted: &[IpNet],
) -> IpAddr {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(&canonical(*ip)));
    if !is_trusted(&peer) {
        return canonical(peer);
    }
    let hops: Vec<&str> = forwarded.flat_map(|value| value.split(',')).collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        match hop.trim().parse::<IpAddr>() {
            Ok(ip) => {
                client = ip;
                if !is_trusted(&ip) {
                    break;
                }
            }
            // A hop we cannot read ends what we can believe: keep the last good one.
            Err(_) => break,
        }
    }
    canonical(client)
}

/// IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`) as plain IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn nets(list: &[&str]) -> Vec<IpNet> {
        list.iter().map(|n| n.parse().unwrap()).collect()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        let got = resolve(
            ip("203.0.113.9"),
            ["1.2.3.4"].into_iter(),
            &nets(&["10.0.0.0/8"]),
        );
        assert_eq!(got, ip("203.0.113.9"));
        let got = resolve(ip("127.0.0.1"), ["1.2.3.4"].into_iter(), &[]);
        assert_eq!(got, ip("127.0.0.1"));
    }

    #[test]
    fn a_trusted_proxy_gives_the_rightmost_untrusted_hop() {
        let trusted = nets(&["10.0.0.0/8", "127.0.0.1/32"]);
        // The client wrote a fake first hop; its real address was appended by our proxies.
        let got = resolve(
            ip("127.0.0.1"),
            ["6.6.6.6, 198.51.100.7", "10.1.2.3"].into_iter(),
            &trusted,
        );
        assert_eq!(got, ip("198.51.100.7"));
    }

    #[test]
    fn garbage_and_missing_headers_fall_back_safely() {
        let trusted = nets(&["127.0.0.1/32"]);
        assert_eq!(
            resolve(ip("127.0.0.1"), std::iter::empty(), &trusted),
            ip("127.0.0.1")
        );
        assert_eq!(
            resolve(ip("127.0.0.1"), ["not-an-ip"].into_iter(), &trusted),
            ip("127.0.0.1")
        );
        assert_eq!(
            resolve(
                ip("127.0.0.1"),
                ["198.51.100.7, junk"].into_iter(),
                &trusted
            ),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn an_ipv6_client_counts_as_its_64_and_an_ipv4_client_as_itself() {
        let a = ClientNet::of(ip("2001:db8:1:2:aaaa::1"));
        let b = ClientNet::of(ip("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        let other = ClientNet::of(ip("2001:db8:1:3::1"));
        assert_eq!(a, b);
        assert_ne!(a, other);
        assert_eq!(a.to_string(), "2001:db8:1:2::/64");
        assert_ne!(
            ClientNet::of(ip("192.0.2.1")),
            ClientNet::of(ip("192.0.2.2"))
        );
        assert_eq!(
            ClientNet::of(ip("::ffff:192.0.2.1")).to_string(),
            "192.0.2.1"
        );
    }

    #[test]
    fn mapped_ipv6_is_read_as_ipv4() {
        let trusted = nets(&["10.0.0.0/8"]);
        let got = resolve(ip("::ffff:10.0.0.5"), ["192.0.2.1"].into_iter(), &trusted);
        assert_eq!(got, ip("192.0.2.1"));
    }
}
