#include "common/address_set.hpp"

#include <boost/asio/ip/address.hpp>

namespace plaudit {
namespace ip = boost::asio::ip;

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') {
    s.remove_prefix(1);
  }
  while (!s.empty() && s.back() == ' ') {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

Result<AddressSet> AddressSet::Parse(std::string_view text) {
  AddressSet set;
  while (!Trim(text).empty()) {
    const size_t comma = text.find(',');
    const std::string item(Trim(text.substr(0, comma)));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    auto bad = [&] {
      return Fail(ErrorCode::kInvalidArgument,
                  "'" + item + "' is not an IP address or network (e.g. 10.0.0.0/8, ::1/128)");
    };
    if (item.empty()) {
      return bad();
    }
    boost::system::error_code ec;
    const std::string spec = item.find('/') == std::string::npos
                                 ? item + (item.find(':') == std::string::npos ? "/32" : "/128")
                                 : item;
    if (spec.find(':') == std::string::npos) {
      auto net = ip::make_network_v4(spec, ec);
      if (ec) {
        return bad();
      }
      set.v4_.push_back(net.canonical());
    } else {
      auto net = ip::make_network_v6(spec, ec);
      if (ec) {
        return bad();
      }
      set.v6_.push_back(net.canonical());
    }
  }
  return set;
}

bool AddressSet::Contains(std::string_view address) const {
  boost::system::error_code ec;
  ip::address a = ip::make_address(std::string(address), ec);
  if (ec) {
    return false;
  }
  if (a.is_v6() && a.to_v6().is_v4_mapped()) {
    a = ip::make_address_v4(ip::v4_mapped, a.to_v6());
  }
  if (a.is_v4()) {
    const ip::network_v4 host(a.to_v4(), 32);
    for (const auto& net : v4_) {
      if (host == net || host.is_subnet_of(net)) {
        return true;
      }
    }
    return false;
  }
  const ip::network_v6 host(a.to_v6(), 128);
  for (const auto& net : v6_) {
    if (host == net || host.is_subnet_of(net)) {
      return true;
    }
  }
  return false;
}

std::string AddressSet::ToString() const {
  std::string text;
  auto append = [&text](const auto& net) {
    text += text.empty() ? "" : ",";
    text += net.to_string();
  };
  for (const auto& net : v4_) {
    append(net);
  }
  for (const auto& net : v6_) {
    append(net);
  }
  return text;
}

std::string RateLimitClient(std::string_view address) {
  if (address.find(':') == std::string_view::npos) {
    return std::string(address);  // IPv4
  }
  boost::system::error_code ec;
  const ip::address_v6 a = ip::make_address_v6(std::string(address), ec);
  if (ec) {
    return std::string(address);
  }
  if (a.is_v4_mapped()) {
    return ip::make_address_v4(ip::v4_mapped, a).to_string();
  }
  return ip::network_v6(a, 64).canonical().to_string();
}

}  // namespace plaudit
