// Graphviz reports syntax errors and warnings through one process-wide callback (cgraph's
// agseterrf). While a GraphvizMessages is alive they are collected here instead of going to
// stderr, so that graphprof can say in one line what went wrong. Implemented in
// graph_render.cpp, the one Graphviz TU (DOT files are read by graphprof's own reader). Not
// thread-safe: Graphviz itself is not.
#pragma once
#include <string>
#include <vector>

namespace gp::detail {

class GraphvizMessages {
 public:
  GraphvizMessages();
  ~GraphvizMessages();
  GraphvizMessages(const GraphvizMessages&) = delete;
  GraphvizMessages& operator=(const GraphvizMessages&) = delete;

  // One entry per message line, without Graphviz's "Error: "/"Warning: " and "<stdin>: " prefixes.
  std::vector<std::string> lines() const;
  bool has_errors() const;  // an "Error" (not only warnings) was reported

 private:
  using Callback = int (*)(char*);  // the signature of cgraph's agusererrf
  Callback previous_;
};

}  // namespace gp::detail
