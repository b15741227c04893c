// The compact graph model (issue 11): shared texts and launch configurations read like the
// strings and optionals they replace, equal values are one shared entry, also across the
// loader's threads, and a node stays small.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "graphprof/graph/graph_model.hpp"

namespace gp {
namespace {

TEST(SharedText, ReadsLikeAConstString) {
  const SharedText none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.str(), "");
  const SharedText k("KERNEL");
  EXPECT_EQ(k, "KERNEL");
  EXPECT_EQ(std::string("KERNEL"), k);
  EXPECT_NE(k, "MEMCPY");
  EXPECT_EQ(k.size(), 6u);
  EXPECT_EQ(k.find("NEL"), 3u);
  EXPECT_EQ(k.rfind("K", 0), 0u);
  EXPECT_EQ("a " + k + " b", "a KERNEL b");
  const std::string& as_string = k;
  EXPECT_EQ(as_string, "KERNEL");
  const std::string picked = none.empty() ? "(unnamed)" : none;  // a literal in a ternary
  EXPECT_EQ(picked, "(unnamed)");
  std::ostringstream out;
  out << k;
  EXPECT_EQ(out.str(), "KERNEL");
  SharedText assigned;
  assigned = std::string("MEMSET");
  EXPECT_EQ(assigned, SharedText("MEMSET"));
}

TEST(SharedText, EqualTextsAreOneEntryAcrossThreads) {
  const SharedText a(std::string_view("_Z6tiny_kPfi"));
  const SharedText b("_Z6tiny_kPfi");
  EXPECT_EQ(a.c_str(), b.c_str());
  std::vector<const char*> seen(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&seen, t] {
      for (int i = 0; i < 1000; ++i) seen[t] = SharedText("shared_" + std::to_string(i % 7)).c_str();
    });
  for (auto& t : threads) t.join();
  // Every thread ends on the same text (999 % 7 = 5), interned once.
  EXPECT_EQ(std::set<const char*>(seen.begin(), seen.end()).size(), 1u);
  EXPECT_EQ(std::string(seen[0]), "shared_5");
}

TEST(SharedLaunch, ReadsLikeAnOptionalAndSharesEqualConfigs) {
  const SharedLaunch none;
  EXPECT_FALSE(none.has_value());
  EXPECT_FALSE(none);
  const SharedLaunch a = parse_launch_config("4,256,0");
  const SharedLaunch b = parse_launch_config("4, 256, 0");  // the same text once spaces are gone
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->grid, (Dim3{4, 1, 1}));
  EXPECT_EQ((*a).block, (Dim3{256, 1, 1}));
  EXPECT_EQ(&*a, &*b);
  EXPECT_NE(&*a, &*SharedLaunch(parse_launch_config("8,256,0")));
}

TEST(GraphModel, NodesOfABigDumpShareTheirTextsAndStaySmall) {
  std::string text = "digraph dot {\nsubgraph cluster_1 {\n";
  for (int i = 0; i < 50000; ++i)  // more than one loader thread's share
    text += "\"graph_1_node_" + std::to_string(i) + "\"[style=\"bold\" shape=\"record\" label=\"{KERNEL\n| {ID | " +
            std::to_string(i) + " (topoId: 0) | _Z4stepPfi\\<\\<\\<16,256,0\\>\\>\\>}}\"];\n";
  text += "}\n}\n";
  const GraphModel m = load_dot_text(text, "big.dot");
  ASSERT_EQ(m.nodes.size(), 50000u);
  std::set<const void*> names, launches, shapes;
  for (const GraphNode& n : m.nodes) {
    names.insert(n.mangled.c_str());
    launches.insert(&*n.launch);
    shapes.insert(n.shape.c_str());
  }
  EXPECT_EQ(names.size(), 1u);
  EXPECT_EQ(launches.size(), 1u);
  EXPECT_EQ(shapes.size(), 1u);
  EXPECT_EQ(m.nodes[49999].short_name, "step");
  // 184 and 12 bytes on x86-64 Linux; the figures in docs/graphs.md rest on these.
  EXPECT_LE(sizeof(GraphNode), 192u);
  EXPECT_LE(sizeof(GraphEdge), 12u);
}

}  // namespace
}  // namespace gp
