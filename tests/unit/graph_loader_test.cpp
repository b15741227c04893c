// DOT loading: the H200 dumps under tests/data/dot (default and verbose forms) load into the
// exact nodes, kinds, names and sizes the workloads create; malformed input fails with one
// line that names the file (exit 3); layouts the fixtures lack are covered by small inline
// dumps written in the driver's format.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/graph/graph_model.hpp"
#include "../../src/graph/node_label.hpp"
#include "unit_test_helpers.hpp"

namespace gp {
namespace {

namespace fs = std::filesystem;


std::map<NodeKind, std::size_t> kinds(const GraphModel& m) {
  std::map<NodeKind, std::size_t> k;
  for (const auto& n : m.nodes) ++k[n.kind];
  return k;
}

// Expect load_dot_text to fail with kBadInput and a message that contains `part`.
void expect_bad(const std::string& text, const std::string& part) {
  try {
    (void)load_dot_text(text, "in.dot");
    FAIL() << "loaded without error; expected: " << part;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput) << e.what();
    EXPECT_NE(std::string(e.what()).find("in.dot: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
  }
}

TEST(GraphLoader, ChainDefaultAndVerboseAgree) {
  for (const char* f : {"chain100_capture.dot", "chain100_capture_verbose.dot"}) {
    const GraphModel m = load_dot(test::dot_fixture(f));
    ASSERT_EQ(m.nodes.size(), 100u) << f;
    EXPECT_EQ(m.edges.size(), 99u) << f;
    EXPECT_EQ(kinds(m)[NodeKind::kKernel], 100u) << f;
    ASSERT_EQ(m.clusters.size(), 1u);
    EXPECT_EQ(m.clusters[0].graph_id, 13);
    EXPECT_FALSE(m.clusters[0].parent_node.has_value());
    // Node i is "graph_13_node_i" and the chain runs in creation order.
    for (std::size_t i = 0; i < m.nodes.size(); ++i) {
      EXPECT_EQ(m.nodes[i].dot_name, "graph_13_node_" + std::to_string(i));
      EXPECT_EQ(m.nodes[i].graph_id, 13);
      EXPECT_EQ(m.nodes[i].index, static_cast<int>(i));
      EXPECT_EQ(m.nodes[i].short_name, "chain_step");
      EXPECT_EQ(m.nodes[i].mangled.rfind("_ZN2gp", 0), 0u) << m.nodes[i].mangled;
      EXPECT_NE(m.nodes[i].demangled.find("chain_step("), std::string::npos) << m.nodes[i].demangled;
    }
    for (std::size_t i = 0; i < m.edges.size(); ++i) {
      EXPECT_EQ(m.nodes[m.edges[i].from].index + 1, m.nodes[m.edges[i].to].index);
    }
  }
}

TEST(GraphLoader, VerboseCarriesLaunchConfigTopoIdsAndPorts) {
  const GraphModel v = load_dot(test::dot_fixture("chain100_capture_verbose.dot"));
  const GraphModel d = load_dot(test::dot_fixture("chain100_capture.dot"));
  EXPECT_TRUE(v.verbose);
  EXPECT_FALSE(d.verbose);
  ASSERT_TRUE(v.nodes[0].launch.has_value());
  EXPECT_EQ(v.nodes[0].launch->grid, (Dim3{16, 1, 1}));
  EXPECT_EQ(v.nodes[0].launch->block, (Dim3{256, 1, 1}));
  EXPECT_EQ(v.nodes[0].launch->shared_bytes, 0u);
  EXPECT_EQ(v.nodes[0].launch->text, "16,256,0");
  EXPECT_FALSE(d.nodes[0].launch.has_value());
  // topoId is reverse topological: the first node of a 100-chain is 99, the last 0.
  EXPECT_EQ(v.nodes.front().topo_id, 99);
  EXPECT_EQ(v.nodes.back().topo_id, 0);
  EXPECT_EQ(d.nodes.front().topo_id, -1);
  EXPECT_EQ(v.edges[0].port, 0);
  EXPECT_EQ(d.edges[0].port, -1);
}

TEST(GraphLoader, ForkJoinCaptureHasTheExtraRootToJoinEdge) {
  const GraphModel cap = load_dot(test::dot_fixture("fork-join_capture_verbose.dot"));
  const GraphModel exp = load_dot(test::dot_fixture("fork-join_graph_verbose.dot"));
  for (const GraphModel* m : {&cap, &exp}) {
    ASSERT_EQ(m->nodes.size(), 66u);
    EXPECT_EQ(kinds(*m)[NodeKind::kKernel], 66u);
    EXPECT_EQ(m->nodes[0].short_name, "fj_root");
    EXPECT_EQ(m->nodes[65].short_name, "fj_join");
    EXPECT_EQ(m->nodes[1].short_name, "fj_step");
  }
  // 8 root->branch + 8 x 7 inside the branches + 8 branch->join; capture adds root->join.
  EXPECT_EQ(exp.edges.size(), 72u);
  EXPECT_EQ(cap.edges.size(), 73u);
  bool root_to_join = false;
  for (const auto& e : cap.edges) root_to_join = root_to_join || (e.from == 0 && e.to == 65);
  EXPECT_TRUE(root_to_join);
  // The join's dependency slots are numbered by headlabel 0..8.
  int max_port = -1;
  for (const auto& e : cap.edges)
    if (e.to == 65) max_port = std::max(max_port, e.port);
  EXPECT_EQ(max_port, 8);
}

TEST(GraphLoader, MemcpyMemsetDirectionsAndBytes) {
  for (const char* f : {"memcpy_capture.dot", "memcpy_capture_verbose.dot", "memcpy_graph_verbose.dot"}) {
    const GraphModel m = load_dot(test::dot_fixture(f));
    auto k = kinds(m);
    EXPECT_EQ(m.nodes.size(), 112u) << f;
    EXPECT_EQ(k[NodeKind::kKernel], 48u) << f;
    EXPECT_EQ(k[NodeKind::kMemcpy], 48u) << f;
    EXPECT_EQ(k[NodeKind::kMemset], 16u) << f;
    std::map<std::string, std::size_t> dirs;
    for (const auto& n : m.nodes) {
      if (n.kind == NodeKind::kMemcpy || n.kind == NodeKind::kMemset) {
        ASSERT_TRUE(n.bytes.has_value()) << f << " " << n.dot_name;
        EXPECT_EQ(*n.bytes, 4096u) << f << " " << n.dot_name;
      }
      if (n.kind == NodeKind::kMemcpy) ++dirs[n.copy_direction];
      if (n.kind == NodeKind::kMemset) EXPECT_EQ(n.memset_value.value_or(99), 0u) << f;
    }
    EXPECT_EQ(dirs, (std::map<std::string, std::size_t>{{"DtoD", 16}, {"DtoH", 16}, {"HtoD", 16}})) << f;
  }
}

TEST(GraphLoader, HostAllocAndFree) {
  const GraphModel h = load_dot(test::dot_fixture("host_capture_verbose.dot"));
  auto kh = kinds(h);
  EXPECT_EQ(kh[NodeKind::kHost], 8u);
  EXPECT_EQ(kh[NodeKind::kKernel], 8u);
  EXPECT_EQ(kh[NodeKind::kMemcpy], 16u);
  EXPECT_EQ(h.edges.size(), 31u);
  for (const auto& n : h.nodes)
    if (n.kind == NodeKind::kHost) EXPECT_GE(n.topo_id, 0) << "verbose host labels carry topoId";

  for (const char* f : {"alloc_capture.dot", "alloc_graph_verbose.dot"}) {
    const GraphModel a = load_dot(test::dot_fixture(f));
    auto ka = kinds(a);
    EXPECT_EQ(ka[NodeKind::kMemAlloc], 4u) << f;
    EXPECT_EQ(ka[NodeKind::kMemFree], 4u) << f;
    EXPECT_EQ(ka[NodeKind::kKernel], 8u) << f;
    EXPECT_EQ(a.edges.size(), 15u) << f;
  }
  const GraphModel av = load_dot(test::dot_fixture("alloc_graph_verbose.dot"));
  for (const auto& n : av.nodes)
    if (n.kind == NodeKind::kMemAlloc) EXPECT_EQ(n.bytes.value_or(0), 1048576u) << n.dot_name;
}

TEST(GraphLoader, WhileBodyIsAClusterRunByTheConditionalNode) {
  for (const char* f : {"while_capture.dot", "while_capture_verbose.dot"}) {
    const GraphModel m = load_dot(test::dot_fixture(f));
    ASSERT_EQ(m.nodes.size(), 4u) << f;
    EXPECT_EQ(m.edges.size(), 2u) << f;
    ASSERT_EQ(m.clusters.size(), 2u) << f;
    const GraphNode& cond = m.nodes[1];
    EXPECT_EQ(cond.kind, NodeKind::kConditional);
    EXPECT_EQ(cond.conditional_type, "WHILE");
    ASSERT_EQ(cond.child_graphs, std::vector<gp::GraphId>{266}) << f;
    const GraphCluster* body = m.cluster(266);
    ASSERT_NE(body, nullptr);
    ASSERT_TRUE(body->parent_node.has_value());
    EXPECT_EQ(*body->parent_node, 1u);
    EXPECT_EQ(body->nodes.size(), 2u);
    EXPECT_FALSE(m.cluster(265)->parent_node.has_value());
    EXPECT_EQ(m.nodes[2].short_name, "wh_relax");
    EXPECT_EQ(m.nodes[3].short_name, "wh_check");  // a template instance: wh_check<true>
    EXPECT_NE(m.nodes[3].demangled.find("wh_check<true>"), std::string::npos) << m.nodes[3].demangled;
  }
}

TEST(GraphLoader, EveryFixtureLoads) {
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(std::string(GRAPHPROF_TEST_DATA) + "/dot")) {
    if (e.path().extension() != ".dot") continue;
    ++files;
    const GraphModel m = load_dot(e.path().string());
    EXPECT_GT(m.nodes.size(), 0u) << e.path();
    EXPECT_TRUE(m.warnings.empty()) << e.path() << ": " << (m.warnings.empty() ? "" : m.warnings[0]);
    for (const auto& n : m.nodes) EXPECT_NE(n.kind, NodeKind::kOther) << e.path() << " " << n.dot_name;
  }
  EXPECT_GE(files, 12u);
}

// The driver's default-form labels of the node types the fixtures lack (reference notes §2.2).
const char* kOtherTypes = R"(digraph dot {
subgraph cluster_2 {
label="graph_2" graph[style="dashed"];
"graph_2_node_0"[style="solid" shape="rectangle" label="0
EVENT_RECORD
"];

"graph_2_node_1"[style="solid" shape="rectangle" label="1
EVENT_WAIT
"];

"graph_2_node_2"[style="solid" shape="rectangle" label="2
EMPTY
"];

"graph_2_node_3"[style="solid" shape="rectangle" label="3
graph_4
"];

"graph_2_node_4"[style="bold" shape="record" label="{
CONDITIONAL
| {ID | 4}
| {Conditional Type| IF}
| {True | graph_6}
| {False| graph_7}
}
"];

"graph_2_node_5"[style="solid" shape="rectangle" label="5
SOME_FUTURE_NODE
"];

"graph_2_node_0" -> "graph_2_node_1";
"graph_2_node_1" -> "graph_2_node_2";
"graph_2_node_2" -> "graph_2_node_3";
"graph_2_node_3" -> "graph_2_node_4";
"graph_2_node_4" -> "graph_2_node_5";
subgraph cluster_4 {
label="graph_4" graph[style="dashed"];
"graph_4_node_0"[style="bold" shape="octagon" label="0
_Z1kIiLi3EEvPT_
"];

}
}
subgraph cluster_6 {
label="graph_6" graph[style="dashed"];
"graph_6_node_0"[style="solid" shape="trapezium"label="0
MEMCPY
(DtoD,1048576)
"];

}
subgraph cluster_7 {
label="graph_7" graph[style="dashed"];
}
}
)";

TEST(GraphLoader, OtherNodeTypesNestedClustersAndEmptyBodies) {
  const GraphModel m = load_dot_text(kOtherTypes, "types.dot");
  ASSERT_EQ(m.nodes.size(), 8u);
  EXPECT_EQ(m.nodes[0].kind, NodeKind::kEventRecord);
  EXPECT_EQ(m.nodes[1].kind, NodeKind::kEventWait);
  EXPECT_EQ(m.nodes[2].kind, NodeKind::kEmpty);
  EXPECT_EQ(m.nodes[3].kind, NodeKind::kChildGraph);
  EXPECT_EQ(m.nodes[3].child_graphs, std::vector<gp::GraphId>{4});
  EXPECT_EQ(m.nodes[4].kind, NodeKind::kConditional);
  EXPECT_EQ(m.nodes[4].conditional_type, "IF");
  EXPECT_EQ(m.nodes[4].child_graphs, (std::vector<gp::GraphId>{6, 7}));
  // A type word this version does not know is kept, not guessed.
  EXPECT_EQ(m.nodes[5].kind, NodeKind::kOther);
  EXPECT_EQ(m.nodes[5].type_text, "SOME_FUTURE_NODE");
  // graph_4 is nested inside graph_2's cluster; membership comes from the node name.
  const GraphCluster* child = m.cluster(4);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->parent_node.value_or(99), 3u);
  ASSERT_EQ(child->nodes.size(), 1u);
  const GraphNode& k = m.nodes[child->nodes[0]];
  EXPECT_EQ(k.demangled, "void k<int, 3>(int*)");
  EXPECT_EQ(k.short_name, "k");
  // The empty else-body is still a graph of the dump.
  ASSERT_NE(m.cluster(7), nullptr);
  EXPECT_TRUE(m.cluster(7)->nodes.empty());
  EXPECT_EQ(m.cluster(6)->parent_node.value_or(99), 4u);
  EXPECT_EQ(m.nodes[m.cluster(6)->nodes[0]].bytes.value_or(0), 1048576u);
}

TEST(GraphLoader, ChildGraphReferencesInOtherLabelLayouts) {
  // A verbose-style child-graph node with the reference inside a longer line, and a kernel
  // whose name merely contains "graph_": only the first links to a graph.
  const std::string text =
      "digraph dot {\nsubgraph cluster_1 {\nlabel=\"graph_1\";\n"
      "\"graph_1_node_0\"[shape=\"rectangle\" label=\"0 (topoId: 1)\nCHILD_GRAPH\nnode handle: 0x1\n"
      "graph: graph_5\n\"];\n"
      "\"graph_1_node_1\"[shape=\"octagon\" style=\"bold\" label=\"1\nbuild_graph_2\n\"];\n"
      "\"graph_1_node_0\" -> \"graph_1_node_1\";\n}\n"
      "subgraph cluster_5 {\nlabel=\"graph_5\";\n\"graph_5_node_0\"[shape=\"rectangle\" label=\"0\nEMPTY\n\"];\n}\n}\n";
  const GraphModel m = load_dot_text(text, "child.dot");
  ASSERT_EQ(m.nodes.size(), 3u);
  EXPECT_EQ(m.nodes[0].kind, NodeKind::kChildGraph);
  EXPECT_EQ(m.nodes[0].topo_id, 1);
  EXPECT_EQ(m.nodes[0].child_graphs, std::vector<gp::GraphId>{5});
  EXPECT_EQ(m.nodes[1].kind, NodeKind::kKernel);
  EXPECT_TRUE(m.nodes[1].child_graphs.empty());
  EXPECT_EQ(m.cluster(5)->parent_node.value_or(99), 0u);
  EXPECT_TRUE(m.warnings.empty());
}

TEST(GraphLoader, ToleratesDuplicatedAttributesAndMissingSpaces) {
  // Both quirks straight from the driver: "style" twice, no space before "label".
  const std::string text =
      "digraph dot {\nsubgraph cluster_1 {\nlabel=\"graph_1\" graph[style=\"dashed\"];\n"
      "\"graph_1_node_0\"[style=\"solid\" style=\"solid\" shape=\"record\" label=\"{MEMSET\n"
      "| {{ID | node handle | dptr | pitch | value | elementSize | width | height} | "
      "{0 (topoId: 0) | 0x1 | 0x2 | 0 | 7 | 4 | 256 | 2}}}\"];\n"
      "\"graph_1_node_1\"[style=\"solid\" shape=\"invtrapezium\"label=\"1\nMEMSET\n(0,64)\n\"];\n"
      "}\n}\n";
  const GraphModel m = load_dot_text(text, "quirks.dot");
  ASSERT_EQ(m.nodes.size(), 2u);
  EXPECT_EQ(m.nodes[0].kind, NodeKind::kMemset);
  EXPECT_EQ(m.nodes[0].bytes.value_or(0), 256u * 4u * 2u);  // width x elementSize x height
  EXPECT_EQ(m.nodes[0].memset_value.value_or(0), 7u);
  EXPECT_EQ(m.nodes[1].bytes.value_or(0), 64u);
}

TEST(GraphLoader, BadInputIsOneLineWithTheFileName) {
  expect_bad("", "file is empty");
  expect_bad("  \n\t\n", "file is empty");
  expect_bad("hello world\n", "not valid DOT");
  expect_bad(std::string("digraph dot {\0}", 15), "binary");
  expect_bad("digraph G { a -> b; }", "not a CUDA graph dump: node 'a'");
  expect_bad("graph G { graph_1_node_0 -- graph_1_node_1; }", "undirected");
  expect_bad("digraph G { graph_1_node_0 -> graph_1_node_1; graph_1_node_1 -> graph_1_node_0; }", "cycle");
  expect_bad("digraph dot {\nsubgraph cluster_3 {\nlabel=\"graph_3\";\n}\n}\n", "no nodes");
  expect_bad("digraph G { }", "not a CUDA graph dump");
}

TEST(GraphLoader, EveryTruncationOfARealDumpIsRejected) {
  const std::string text = read_file(test::dot_fixture("while_capture_verbose.dot"));
  const std::size_t last_brace = text.rfind('}');
  ASSERT_NE(last_brace, std::string::npos);
  // Cut anywhere before the final brace: each prefix must fail cleanly, never load or crash.
  for (std::size_t n = 1; n < last_brace; n += 7) {
    try {
      (void)load_dot_text(text.substr(0, n), "cut.dot");
      ADD_FAILURE() << "prefix of " << n << " bytes loaded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kBadInput) << n;
    }
  }
  // And the reader still works afterwards (cgraph, the earlier reader, kept state between reads).
  EXPECT_EQ(load_dot_text(text, "whole.dot").nodes.size(), 4u);
}

TEST(GraphLoader, NotValidDotNamesTheLineAndRefusesASecondGraph) {
  const std::string text = read_file(test::dot_fixture("while_capture_verbose.dot"));
  // Cut inside the second node's label, which opens on line 12: the message names where it opened.
  expect_bad(text.substr(0, text.find("CONDITIONAL")), "not valid DOT: line 12: a quoted string is not closed");
  expect_bad(text.substr(0, text.rfind('}')), "expected '}' to close the graph, but the text ends (truncated file?)");
  // cgraph read the first graph and silently ignored what followed; a dump is one graph.
  expect_bad(text + "digraph again {}\n", "not valid DOT: line 45: text after the end of the graph (one graph per file)");
}

TEST(GraphLoader, FolderIsBadInput) {
  try {
    (void)load_dot(fs::temp_directory_path().string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
  }
}

TEST(GraphLoader, MissingFileIsBadInput) {
  try {
    (void)load_dot("/nonexistent/graph.dot");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/graph.dot"), std::string::npos);
  }
}

TEST(GraphLoader, NodeWithoutLabelIsKeptWithAWarning) {
  const GraphModel m = load_dot_text("digraph G { graph_1_node_0 -> graph_1_node_1; }", "bare.dot");
  ASSERT_EQ(m.nodes.size(), 2u);
  EXPECT_EQ(m.nodes[0].kind, NodeKind::kOther);
  EXPECT_EQ(m.warnings.size(), 2u);
}

// ---- Hostile input (issue 11): every bad file is kBadInput with the file name ----------------

// One verbose kernel node of graph `g` whose label is `label` (already escaped for DOT).
std::string one_node(const std::string& g, const std::string& label, const std::string& extra = "") {
  return "digraph dot {\nsubgraph cluster_" + g + " {\nlabel=\"graph_" + g + "\";\n\"graph_" + g +
         "_node_0\"[style=\"bold\" shape=\"record\" label=\"" + label + "\"];\n" + extra + "}\n}\n";
}

TEST(GraphLoader, DeeplyNestedRecordLabelIsBadInputNotACrash) {
  // 50 000 '{' crashed the recursive record parser (SIGSEGV); the driver nests 4 deep.
  expect_bad(one_node("1", std::string(50000, '{') + "KERNEL"), "nested more than 64 braces deep");
  try {
    (void)load_dot_text(one_node("1", std::string(50000, '{')), "deep.dot");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("deep.dot: node graph_1_node_0: "), std::string::npos) << e.what();
  }
  // As deep as allowed still reads.
  const GraphModel m = load_dot_text(one_node("1", std::string(60, '{') + "KERNEL | x" + std::string(60, '}')), "ok.dot");
  EXPECT_EQ(m.nodes[0].kind, NodeKind::kKernel);
}

// cluster() is a binary search over the clusters the loader sorts by graph id, whatever order the
// dump lists them in; ids between, below and above them are not found.
TEST(GraphLoader, ClusterLookupFindsEveryGraphInAnyFileOrder) {
  std::string text = "digraph dot {\nsubgraph cluster_1 {\nlabel=\"graph_1\";\n";
  std::vector<GraphId> ids;
  for (int i = 0; i < 200; ++i) ids.push_back(GraphId{1000} + (i * 7919) % 200 * 3);  // a shuffle of 1000..1597 by 3
  for (std::size_t i = 0; i < ids.size(); ++i)
    text += "\"graph_1_node_" + std::to_string(i) + "\"[shape=\"record\" label=\"{CHILD_GRAPH | graph_" +
            std::to_string(ids[i]) + "}\"];\n";
  text += "}\n";
  for (const GraphId id : ids)  // in the same shuffled order
    text += "subgraph cluster_" + std::to_string(id) + " {\nlabel=\"graph_" + std::to_string(id) + "\";\n\"graph_" +
            std::to_string(id) + "_node_0\"[shape=\"octagon\" label=\"0\n_Z1kv\n\"];\n}\n";
  text += "subgraph cluster_5000 {\nlabel=\"graph_5000\";\n}\n}\n";  // declared, empty
  const GraphModel m = load_dot_text(text, "many.dot");
  ASSERT_EQ(m.clusters.size(), 202u);
  for (std::size_t c = 1; c < m.clusters.size(); ++c) EXPECT_LT(m.clusters[c - 1].graph_id, m.clusters[c].graph_id);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const GraphCluster* c = m.cluster(ids[i]);
    ASSERT_NE(c, nullptr) << ids[i];
    EXPECT_EQ(c->graph_id, ids[i]);
    EXPECT_EQ(c->parent_node, std::optional<std::size_t>{i}) << ids[i];
    ASSERT_EQ(c->nodes.size(), 1u);
    EXPECT_EQ(m.nodes[c->nodes[0]].graph_id, ids[i]);
    EXPECT_EQ(m.cluster(ids[i] + 1), nullptr) << ids[i] + 1;  // between two clusters
  }
  ASSERT_NE(m.cluster(1), nullptr);
  EXPECT_EQ(m.cluster(1)->nodes.size(), 200u);
  ASSERT_NE(m.cluster(5000), nullptr);
  EXPECT_TRUE(m.cluster(5000)->nodes.empty());
  for (const GraphId absent : {GraphId{0}, GraphId{-1}, GraphId{999}, GraphId{4999}, GraphId{5001},
                               std::numeric_limits<GraphId>::max(), std::numeric_limits<GraphId>::min()})
    EXPECT_EQ(m.cluster(absent), nullptr) << absent;
  EXPECT_EQ(GraphModel().cluster(1), nullptr);
}

TEST(GraphLoader, LargeGraphIdsAreReadIn64BitsNeverWrapped) {
  // cluster_99999999999 was exit 6 ("stoi") and graph_99999999999_node_0 wrapped to 32 bits.
  const GraphModel m = load_dot_text(
      "digraph dot {\nsubgraph cluster_99999999999 {\nlabel=\"graph_99999999999\";\n"
      "\"graph_99999999999_node_0\"[shape=\"octagon\" label=\"0\n_Z1kv\n\"];\n"
      "\"graph_99999999999_node_1\"[shape=\"record\" label=\"{CHILD_GRAPH | graph_99999999998}\"];\n"
      "\"graph_99999999999_node_0\" -> \"graph_99999999999_node_1\";\n}\n"
      "subgraph cluster_99999999998 {\nlabel=\"graph_99999999998\";\n"
      "\"graph_99999999998_node_0\"[shape=\"octagon\" label=\"0\n_Z1kv\n\"];\n}\n}\n",
      "big.dot");
  ASSERT_EQ(m.nodes.size(), 3u);
  EXPECT_EQ(m.nodes[0].graph_id, GraphId{99999999999});
  EXPECT_EQ(m.nodes[1].child_graphs, std::vector<GraphId>{99999999998});
  ASSERT_NE(m.cluster(99999999998), nullptr);
  EXPECT_EQ(m.cluster(99999999998)->parent_node, std::optional<std::size_t>{1});
  // Numbers beyond 64 bits are refused, with what and where.
  expect_bad("digraph dot {\nsubgraph cluster_99999999999999999999999 {\n\"graph_1_node_0\";\n}\n}\n",
             "subgraph cluster_99999999999999999999999: the number 99999999999999999999999 is too large");
  expect_bad("digraph dot {\n\"graph_1_node_99999999999999999999\";\n}\n", "G and i below 2^63");
}

TEST(GraphLoader, OversizedHeadlabelIsBadInput) {
  const std::string edge = "\"graph_1_node_1\"[shape=\"octagon\" label=\"1\n_Z1kv\n\"];\n"
                           "\"graph_1_node_0\" -> \"graph_1_node_1\" [headlabel=\"99999999999\"];\n";
  expect_bad(one_node("1", "{KERNEL}", edge), "headlabel of an edge into graph_1_node_1: port 99999999999 is too large");
  const std::string fits = "\"graph_1_node_1\"[shape=\"octagon\" label=\"1\n_Z1kv\n\"];\n"
                           "\"graph_1_node_0\" -> \"graph_1_node_1\" [headlabel=\"7\"];\n";
  EXPECT_EQ(load_dot_text(one_node("1", "{KERNEL}", fits), "p.dot").edges.at(0).port, 7);
}

TEST(GraphLoader, Latin1BytesInLabelsBecomeReplacementCharacters) {
  // A Latin-1 "\xe9" in a kernel name made `analyze --json` fail (exit 6, nothing written).
  const GraphModel m = load_dot_text("digraph dot {\nsubgraph cluster_1 {\n\"graph_1_node_0\"[shape=\"octagon\" "
                                     "label=\"0\nk_caf\xe9\n\"];\n}\n}\n",
                                     "latin1.dot");
  ASSERT_EQ(m.nodes.size(), 1u);
  EXPECT_EQ(m.nodes[0].mangled, "k_caf\xEF\xBF\xBD");
  const nlohmann::json j = to_json(analyze(m));
  EXPECT_NE(j.dump().find("k_caf\xEF\xBF\xBD"), std::string::npos);
}

TEST(GraphLoader, SyntaxErrorAfterManyNodesIsBadInput) {
  // Found by fuzz_graph_analysis: a dump cut mid-label. cgraph, the earlier reader, closed the
  // half-read graph itself, which freed memory of the loader's old arena with free() (ASan:
  // bad-free); the sanitized build of this test (tests/fuzz) checks that nothing of the kind is left.
  const std::string path = std::string(GRAPHPROF_TEST_DATA) + "/../fuzz/regressions/dot_syntax_error_partial_graph.dot";
  try {
    (void)load_dot(path);
    FAIL() << "loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput) << e.what();
    EXPECT_NE(std::string(e.what()).find("dot_syntax_error_partial_graph.dot: not valid DOT"), std::string::npos) << e.what();
  }
}

TEST(GraphLoader, ValidUtf8KeepsGoodTextAndReplacesEveryBadByte) {
  EXPECT_EQ(detail::valid_utf8("plain"), "plain");
  EXPECT_EQ(detail::valid_utf8("\xC2\xB5s"), "\xC2\xB5s");  // µs stays
  EXPECT_EQ(detail::valid_utf8("a\xff"), "a\xEF\xBF\xBD");
  EXPECT_EQ(detail::valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(detail::valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(detail::valid_utf8("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short
}

TEST(GraphLoader, TwoDimensionalLaunchConfigsOfCuda13AreRead) {
  // The H200 stencil dump prints dim3 grids as {16,16}: analyze said "unknown".
  const GraphModel m = load_dot(test::dot_fixture("stencil_graph_verbose.dot"));
  std::size_t two_d = 0;
  for (const auto& n : m.nodes) {
    if (n.short_name != "jacobi_sweep") continue;
    ASSERT_TRUE(n.launch) << n.dot_name;
    EXPECT_EQ(n.launch->grid, (Dim3{16, 16, 1}));
    EXPECT_EQ(n.launch->block, (Dim3{16, 16, 1}));
    ++two_d;
  }
  EXPECT_EQ(two_d, 20u);
  const GraphMetrics a = analyze(m);
  for (const auto& k : a.kernels) EXPECT_EQ(k.launch_configs.count("unknown"), 0u) << k.short_name;
}

TEST(KernelNames, DemangleAndBaseName) {
  EXPECT_EQ(demangle_kernel_name("_Z6tiny_kPfi"), "tiny_k(float*, int)");
  EXPECT_EQ(demangle_kernel_name("sm90_xmma_gemm_f16f16"), "sm90_xmma_gemm_f16f16");
  EXPECT_EQ(demangle_kernel_name("_Znotvalid"), "_Znotvalid");
  EXPECT_EQ(kernel_base_name("tiny_k(float*, int)"), "tiny_k");
  EXPECT_EQ(kernel_base_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                             "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
                             "at::detail::Array<char*, 1>)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(kernel_base_name("gp::(anonymous namespace)::chain_step(float*, int, int)"), "chain_step");
  EXPECT_EQ(kernel_base_name("void cub::DeviceReduceKernel<Policy, float*, (anonymous namespace)::Op>(float*)"),
            "DeviceReduceKernel");
  EXPECT_EQ(kernel_base_name("void at::native::elementwise_kernel<128, 4, "
                             "at::native::gpu_kernel_impl<at::native::AddFunctor<float> >(at::TensorIteratorBase&, "
                             "at::native::AddFunctor<float> const&)::{lambda(int)#1}>(int, "
                             "at::native::gpu_kernel_impl<at::native::AddFunctor<float> >(at::TensorIteratorBase&, "
                             "at::native::AddFunctor<float> const&)::{lambda(int)#1})"),
            "elementwise_kernel");
  EXPECT_EQ(kernel_base_name("sm90_xmma_gemm_f16f16"), "sm90_xmma_gemm_f16f16");
}

TEST(KernelNames, LaunchConfigs) {
  auto c = parse_launch_config("4,256,0");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->grid.volume(), 4u);
  EXPECT_EQ(c->block.volume(), 256u);
  c = parse_launch_config("(4,2,1),(32, 8, 1),1024");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->grid, (Dim3{4, 2, 1}));
  EXPECT_EQ(c->block, (Dim3{32, 8, 1}));
  EXPECT_EQ(c->shared_bytes, 1024u);
  EXPECT_FALSE(parse_launch_config("abc"));
  EXPECT_FALSE(parse_launch_config("4"));
  EXPECT_FALSE(parse_launch_config("4,256,x"));
  c = parse_launch_config("{16,16},{16, 16},0");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->grid, (Dim3{16, 16, 1}));
  EXPECT_EQ(c->text, "(16,16),(16,16),0");
  EXPECT_FALSE(parse_launch_config("99999999999999999999999,1,0"));  // does not fit: not read, not wrapped
}

}  // namespace
}  // namespace gp
