#pragma once
// Who the client really is, and whether it spoke HTTPS, when plauditd sits behind reverse
// proxies (API.md --trusted-proxies).
//
// Why the headers are believed only from a trusted peer: anyone can send X-Forwarded-For, and
// an address taken from it unchecked would give a stranger a fresh rate-limit budget per
// request. Only when the TCP peer is a configured proxy are they read, and then the client is
// the rightmost hop that is not itself a trusted proxy: entries to its left were written by
// the client and prove nothing.
#include <string>
#include <string_view>
#include <vector>

#include "common/address_set.hpp"
#include "http/request.hpp"

namespace plaudit::http {

// Which headers the trusted proxies write (--proxy-header). Only those are read: a proxy
// passes on what the client sent in the other family untouched, so believing both (or
// preferring one whenever present) would let a client name its own address behind an
// ordinary proxy.
enum class ProxyHeader {
  kXForwarded,  // X-Forwarded-For / -Proto / -Host (nginx, HAProxy, most load balancers)
  kForwarded,   // RFC 7239 Forwarded: for= / proto= / host=
};

struct ClientEndpoint {
  std::string address;  // the client's IP address, textual ("203.0.113.7", "2001:db8::1")
  bool https = false;   // the client's request came over HTTPS (per a trusted proxy)
  std::string host;     // the Host the client asked for, when a trusted proxy names it
};

// The `for=` nodes of an RFC 7239 Forwarded header, leftmost first, unquoted, without port
// or IPv6 brackets ("\"[2001:db8::1]:4711\"" → "2001:db8::1"). An element without `for=`
// adds nothing; "unknown" and obfuscated nodes ("_hidden") are kept as they are.
std::vector<std::string> ForwardedFor(std::string_view forwarded);
// The `proto=` of the rightmost element that has one (what the nearest proxy saw), or "".
std::string ForwardedProto(std::string_view forwarded);
// The items of X-Forwarded-For, leftmost first, trimmed, ports and IPv6 brackets dropped.
std::vector<std::string> XForwardedFor(std::string_view header);
// The rightmost item of X-Forwarded-Proto (or X-Forwarded-Host), trimmed, or "".
std::string_view XForwardedProto(std::string_view header);
// The `host=` of the rightmost element that has one, or "".
std::string ForwardedHost(std::string_view forwarded);

// The client of a request that arrived from `peer`. From a peer outside `trusted` (or with no
// trusted proxies configured) that is the peer itself, whatever the headers say. From a
// trusted peer: the `family`'s address chain, walked from the right past trusted proxies; a
// node that is not an address ("unknown", "_hidden", garbage) ends the walk at the proxy that
// wrote it, so such clients share that proxy's budget instead of each naming a fresh one;
// `https` and `host` from the same family's proto/host (a proxy that rewrites Host says what
// it was). The other family's headers are ignored.
ClientEndpoint ClientOf(const RawRequest& req, std::string_view peer, const AddressSet& trusted,
                        ProxyHeader family = ProxyHeader::kXForwarded);

}  // namespace plaudit::http
