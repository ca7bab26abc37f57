#pragma once
// A set of IP networks ("127.0.0.0/8,::1/128"), for allow-lists such as --metrics-allow.
// An IPv4 address seen as IPv4-mapped IPv6 (::ffff:127.0.0.1, on a dual-stack listener) is
// matched as the IPv4 address it is.
#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace plaudit {

class AddressSet {
 public:
  // Comma-separated CIDRs or plain addresses (a plain address is a /32 or /128); spaces around
  // items are ignored; "" is the empty set. Anything else is kInvalidArgument naming the item.
  static Result<AddressSet> Parse(std::string_view text);

  // Whether `address` (textual, as from an endpoint) lies in one of the networks. An
  // unparsable address is in none.
  bool Contains(std::string_view address) const;
  // No networks at all (so Contains is false without parsing the address).
  bool empty() const { return v4_.empty() && v6_.empty(); }

  // The networks, IPv4 first, in the form Parse reads ("127.0.0.0/8,::1/128").
  std::string ToString() const;

 private:
  std::vector<boost::asio::ip::network_v4> v4_;
  std::vector<boost::asio::ip::network_v6> v6_;
};

// The client a per-address rate limit counts: the IPv4 address itself (also when seen as
// IPv4-mapped IPv6), and for IPv6 its /64, which one subscriber's link is given whole (keyed by
// the full address, one client would have 2^64 budgets). Anything unparsable is returned as
// it is.
std::string RateLimitClient(std::string_view address);

}  // namespace plaudit
