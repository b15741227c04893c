// The observer's spellings (graphprof/profile/observer.hpp).
#include "graphprof/profile/observer.hpp"

namespace gp {

const char* to_string(Observer o) {
  switch (o) {
    case Observer::kCupti: return "cupti";
    case Observer::kInterpose: return "interpose";
  }
  return "cupti";
}

std::optional<Observer> parse_observer(const std::string& s) {
  if (s == "cupti") return Observer::kCupti;
  if (s == "interpose") return Observer::kInterpose;
  return std::nullopt;
}

Observer observer_or_cupti(const std::string& s) { return parse_observer(s).value_or(Observer::kCupti); }

const char* to_string(ObserveRequest r) {
  switch (r) {
    case ObserveRequest::kAuto: return "auto";
    case ObserveRequest::kCupti: return "cupti";
    case ObserveRequest::kInterpose: return "interpose";
  }
  return "auto";
}

bool observe_request_from_string(const std::string& s, ObserveRequest& out) {
  if (s == "auto") out = ObserveRequest::kAuto;
  else if (s == "cupti") out = ObserveRequest::kCupti;
  else if (s == "interpose") out = ObserveRequest::kInterpose;
  else return false;
  return true;
}

}  // namespace gp
