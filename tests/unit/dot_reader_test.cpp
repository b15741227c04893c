// graphprof's DOT reader (src/graph/dot_reader.hpp) on the DOT language in general, beyond what
// the driver writes: the lexical forms, where defaults apply, which edges a statement makes, and
// one-line errors with the line number. The rules are cgraph 2.42's (a differential run against
// cgraph over the fixtures and thousands of mutated dumps gave the same models).
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "../../src/graph/dot_reader.hpp"

namespace gp::detail {
namespace {

const std::vector<std::string> kNodeAttrs = {"label", "shape"};
const std::vector<std::string> kEdgeAttrs = {"headlabel"};

// The values are views into the text: every text read here stays alive until the test ends.
DotGraph read(std::string text) {
  static std::deque<std::string> texts;
  return read_dot(texts.emplace_back(std::move(text)), kNodeAttrs, kEdgeAttrs);
}

std::string label(const DotGraph& g, std::size_t node) { return std::string(g.node_values[node * 2]); }
std::string shape(const DotGraph& g, std::size_t node) { return std::string(g.node_values[node * 2 + 1]); }

std::vector<std::string> names(const DotGraph& g) { return {g.node_names.begin(), g.node_names.end()}; }

// "tail->head:headlabel" per edge, in creation order.
std::vector<std::string> edges(const DotGraph& g) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < g.edges.size(); ++k)
    out.push_back(std::string(g.node_names[g.edges[k].tail]) + "->" + std::string(g.node_names[g.edges[k].head]) +
                  ":" + std::string(g.edge_values[k]));
  return out;
}

// read() must fail with a message that starts with "line <line>: " and contains `part`.
void expect_error(const std::string& text, int line, const std::string& part) {
  try {
    (void)read(text);
    ADD_FAILURE() << "read without error; expected: " << part;
  } catch (const DotSyntaxError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("line " + std::to_string(line) + ": ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
  }
}

TEST(DotReader, CommentsStringFormsAndEscapes) {
  const DotGraph g = read(
      "// line comment\n/* block\n   comment */\n# preprocessor line\n"
      "strict digraph \"the name\" {  # shell comment\n"
      "  a [label=\"x\\\"y\" shape=\"b\" + \"o\" + \"x\"];\n"         // \" loses its backslash; '+' joins
      "  b [label=\"keep \\n \\l \\< \\\\ \\N\"];\n"                 // every other escape stays for the label reader
      "  c [label=\"one\\\ntwo\"];\n"                                // backslash-newline joins the lines
      "  d [label=<<b>bold</b> <i>x</i>>];\n"                       // HTML string: nested <...>, outer pair dropped
      "  -1.5 [label=.5]; e2x [shape=_];\n"
      "}\n");
  EXPECT_TRUE(g.directed);
  EXPECT_TRUE(g.strict);
  EXPECT_EQ(names(g), (std::vector<std::string>{"a", "b", "c", "d", "-1.5", "e2x"}));
  EXPECT_EQ(label(g, 0), "x\"y");
  EXPECT_EQ(shape(g, 0), "box");
  EXPECT_EQ(label(g, 1), "keep \\n \\l \\< \\\\ \\N");
  EXPECT_EQ(label(g, 2), "onetwo");
  EXPECT_EQ(label(g, 3), "<b>bold</b> <i>x</i>");
  EXPECT_EQ(label(g, 4), ".5");
  EXPECT_EQ(shape(g, 5), "_");
}

TEST(DotReader, KeywordsAnyCaseUndirectedGraphsAndUnsetValues) {
  const DotGraph g = read("GRAPH { Node [shape=box]; x -- y; SubGraph s { z } }");
  EXPECT_FALSE(g.directed);
  EXPECT_FALSE(g.strict);
  EXPECT_EQ(names(g), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(shape(g, 2), "box");
  EXPECT_EQ(label(g, 0), "");  // never set
  EXPECT_EQ(g.subgraph_names, (std::vector<std::string_view>{"s"}));
}

TEST(DotReader, NodesAreNumberedByFirstAppearanceAndEdgesByStatement) {
  const DotGraph g = read(
      "digraph { c; a -> b -> c [headlabel=1]; b:p1:ne -> a:s; d:\"port x\" [label=D] }");
  EXPECT_EQ(names(g), (std::vector<std::string>{"c", "a", "b", "d"}));
  EXPECT_EQ(edges(g), (std::vector<std::string>{"a->b:1", "b->c:1", "b->a:"}));  // ports are not edge ends
  EXPECT_EQ(label(g, 3), "D");
}

TEST(DotReader, SubgraphEndsExpandToTheirNodesInNodeOrder) {
  const DotGraph g = read(
      "digraph { n5; {n3 n1} -> n0; n4 -> subgraph s { n2 n5 subgraph t { n6 } }; "
      "subgraph u { n7 } subgraph u { n8 } -> n9 }");
  EXPECT_EQ(edges(g), (std::vector<std::string>{
                          "n3->n0:", "n1->n0:",                      // n3 was named before n1
                          "n4->n5:", "n4->n2:", "n4->n6:",           // n5 is older than n2; t is inside s
                          "n7->n9:", "n8->n9:"}));                   // a reopened subgraph keeps its nodes
  // Every named subgraph once; anonymous ones are not listed.
  EXPECT_EQ(g.subgraph_names, (std::vector<std::string_view>{"s", "t", "u"}));
}

TEST(DotReader, DefaultsApplyWhereAndWhenAnObjectIsCreated) {
  const DotGraph g = read(
      "digraph {\n"
      "  early;\n"
      "  node [shape=box label=L];\n"
      "  boxed;\n"
      "  subgraph cluster_1 { node [shape=oval]; inner; boxed; edge [headlabel=7]; inner -> boxed }\n"
      "  after;\n"
      "  subgraph cluster_1 { again; again -> after }\n"  // a reopened subgraph keeps its defaults
      "  node [shape=none]; boxed [label=changed];\n"
      "  after -> early;\n"
      "}\n");
  EXPECT_EQ(names(g), (std::vector<std::string>{"early", "boxed", "inner", "after", "again"}));
  EXPECT_EQ(shape(g, 0), "");     // created before any default: a later default does not reach it
  EXPECT_EQ(shape(g, 1), "box");  // not changed by the later defaults, only by its own attributes
  EXPECT_EQ(label(g, 1), "changed");
  EXPECT_EQ(shape(g, 2), "oval");  // the innermost default wins
  EXPECT_EQ(label(g, 2), "L");     // the rest comes from the enclosing graph
  EXPECT_EQ(shape(g, 3), "box");
  EXPECT_EQ(shape(g, 4), "oval");
  EXPECT_EQ(edges(g), (std::vector<std::string>{"inner->boxed:7", "again->after:7", "after->early:"}));
}

TEST(DotReader, ParallelEdgesStayUnlessStrictOrKeyed) {
  EXPECT_EQ(edges(read("digraph { a -> b [headlabel=1]; a -> b [headlabel=0] }")),
            (std::vector<std::string>{"a->b:1", "a->b:0"}));
  // strict: one edge per pair, a repeat only sets attributes
  EXPECT_EQ(edges(read("strict digraph { a -> b [headlabel=1]; {a} -> b [headlabel=4]; b -> a }")),
            (std::vector<std::string>{"a->b:4", "b->a:"}));
  // the same key between the same nodes is the same edge
  EXPECT_EQ(edges(read("digraph { a -> b [key=k headlabel=1]; a -> b [key=k headlabel=2]; a -> b [key=j] }")),
            (std::vector<std::string>{"a->b:2", "a->b:"}));
}

TEST(DotReader, EmptyStatementsTrailingSeparatorsAndGraphAttributes) {
  const DotGraph g = read("digraph { ; a [label=x,]; ; graph [rankdir=LR]; label=\"top\"; b [shape=y;] [label=z] ;; }");
  EXPECT_EQ(names(g), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(label(g, 0), "x");
  EXPECT_EQ(label(g, 1), "z");
  EXPECT_EQ(shape(g, 1), "y");
}

TEST(DotReader, ErrorsNameTheLine) {
  expect_error("", 1, "expected 'digraph' or 'graph', but the text ends");
  expect_error("digraph {\n a -> b;\n", 3, "expected '}' to close the graph, but the text ends (truncated file?)");
  expect_error("digraph {\n a [label=\"x\n\ny\n", 2, "a quoted string is not closed");
  expect_error("digraph {\n a [label=<x<b>y];\n}\n", 2, "an HTML string <...> is not closed");
  expect_error("digraph {\n /* x */ a; /* never\n closed }\n", 2, "a /* comment is not closed");
  expect_error("digraph {\n\n a -- b }", 3, "expected '->' between the ends of an edge in a digraph, found '--'");
  expect_error("graph { a -> b }", 1, "expected '--'");
  expect_error("digraph { a } digraph { b }", 1, "text after the end of the graph (one graph per file), found 'digraph'");
  expect_error("digraph {\n a [label] }", 2, "expected '=' after the attribute name, found ']'");
  expect_error("digraph { a -> ; }", 1, "expected a node or a subgraph after '->', found ';'");
  expect_error("digraph { a @ b }", 1, "unexpected character '@'");
  expect_error("digraph { \"a\" + b }", 1, "'+' must be followed by a quoted string");
  expect_error("digraph { node; }", 1, "expected '[' after 'node', found ';'");
  expect_error("digraph { subgraph x a }", 1, "expected '{' to open the subgraph, found 'a'");
  // Lines inside strings and comments count.
  expect_error("digraph {\n a [label=\"1\n2\n3\"]; /*\n\n*/ b = }", 6, "expected a value after '='");
  // A token in a message is clipped, on one line, valid UTF-8.
  expect_error("digraph { node \"" + std::string(100, 'q') + "\" }", 1, "found '" + std::string(40, 'q') + "...'");
  expect_error("digraph {\n node \"line1\nline2\xe9\" }", 2, "found 'line1\\nline2\xEF\xBF\xBD'");
}

TEST(DotReader, NestingIsLimitedWithoutRecursionTrouble) {
  std::string deep = "digraph { ";
  for (int i = 0; i < 5000; ++i) deep += "subgraph { ";
  expect_error(deep, 1, "subgraphs nested more than 256 deep");
  std::string ok = "digraph { ";
  for (int i = 0; i < kMaxDotNesting; ++i) ok += "subgraph s" + std::to_string(i) + " { ";
  ok += "leaf " + std::string(kMaxDotNesting, '}') + " }";
  const DotGraph g = read(ok);
  EXPECT_EQ(g.node_names.size(), 1u);
  EXPECT_EQ(g.subgraph_names.size(), static_cast<std::size_t>(kMaxDotNesting));
  // HTML strings nest by counting, not by recursion.
  const std::string html = std::string(100000, '<') + std::string(100000, '>');
  EXPECT_EQ(label(read("digraph { a [label=" + html + "] }"), 0).size(), 199998u);
}

TEST(DotReader, SubgraphEdgeEndsCannotMultiplyWithoutBound) {
  // {2000 nodes} -> {2000 nodes}: 4,000,000 edges from a file of ~20 KB (bad_alloc, exit 6, once
  // the sides grow); refused as DOT. A product that stays small is fine.
  std::string side[2];
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 2000; ++i) side[s] += " n" + std::to_string(s) + "_" + std::to_string(i);
  expect_error("digraph {\n {" + side[0] + " } -> {" + side[1] + " } }", 2, "edges (subgraph edge ends multiply");
  EXPECT_EQ(read("digraph { {a b c} -> {d e f} }").edges.size(), 9u);
}

TEST(DotReader, ValuesOutliveTheirEscapesAndJoins) {
  // Values built from escapes or joins live in the DotGraph itself: moving it keeps them valid.
  DotGraph g = read("digraph { \"n\\\"1\" [label=\"a\" + \"b\"] }");
  const DotGraph moved = std::move(g);
  EXPECT_EQ(std::string(moved.node_names[0]), "n\"1");
  EXPECT_EQ(label(moved, 0), "ab");
}

}  // namespace
}  // namespace gp::detail
