//! The client's address for rate limits: the peer address, or, when the peer is a trusted
//! reverse proxy (`HERALD_TRUSTED_PROXIES`), the right-most address of `X-Forwarded-For` that
//! is not itself a trusted proxy. Addresses a client writes into the header itself sit to the
//! left of what its proxies append, so they are never believed.

use std::net::IpAddr;

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
    fn mapped_ipv6_is_read_as_ipv4() {
        let trusted = nets(&["10.0.0.0/8"]);
        let got = resolve(ip("::ffff:10.0.0.5"), ["192.0.2.1"].into_iter(), &trusted);
        assert_eq!(got, ip("192.0.2.1"));
    }
}
