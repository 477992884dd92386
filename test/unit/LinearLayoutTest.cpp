//===- LinearLayoutTest.cpp - LinearLayout against plain enumeration ------===//
//
// Every operation is checked on every input of small layouts (up to a few
// hundred elements) against what it means, computed by enumerating elements
// through `apply` of the operands, and on random layouts.
//
//===----------------------------------------------------------------------===//

#include "ir/Layout/LinearLayout.h"

#include "gtest/gtest.h"

#include <map>
#include <random>
#include <set>

using namespace mlir::tile;
using Point = LinearLayout::Point;

namespace {

LinearLayout make(std::vector<LinearLayout::InDim> ins,
                  std::vector<LinearLayout::OutDim> outs) {
  return llvm::cantFail(LinearLayout::create(std::move(ins), std::move(outs)));
}

/// Every input point of `layout`, in mixed radix order.
std::vector<Point> allInputs(const LinearLayout &layout) {
  std::vector<Point> points{{}};
  for (const auto &in : layout.getInDims()) {
    std::vector<Point> next;
    for (const Point &p : points)
      for (int32_t v = 0; v < layout.getInDimSize(in.name); ++v) {
        Point q = p;
        q.push_back({in.name, v});
        next.push_back(q);
      }
    points = std::move(next);
  }
  return points;
}

int32_t valueOf(const Point &p, llvm::StringRef name) {
  for (const auto &[n, v] : p)
    if (n == name)
      return v;
  return 0;
}

/// A random layout with the given dimensions.
LinearLayout randomLayout(std::mt19937 &rng,
                          std::vector<std::pair<std::string, int>> inBits,
                          std::vector<std::pair<std::string, int32_t>> outs) {
  std::vector<LinearLayout::InDim> ins;
  for (const auto &[name, bits] : inBits) {
    LinearLayout::Bases bases;
    for (int b = 0; b < bits; ++b) {
      std::vector<int32_t> basis;
      for (const auto &[outName, size] : outs)
        basis.push_back(
            std::uniform_int_distribution<int32_t>(0, size - 1)(rng));
      bases.push_back(basis);
    }
    ins.push_back({name, bases});
  }
  std::vector<LinearLayout::OutDim> outDims;
  for (const auto &[name, size] : outs)
    outDims.push_back({name, size});
  return make(ins, outDims);
}

/// A random bijective layout: a random invertible matrix.
LinearLayout randomBijection(std::mt19937 &rng, int bits) {
  while (true) {
    LinearLayout l = randomLayout(
        rng, {{"register", bits / 2}, {"lane", bits - bits / 2}},
        {{"dim0", 1 << (bits / 2)}, {"dim1", 1 << (bits - bits / 2)}});
    if (l.isInvertible())
      return l;
  }
}

TEST(LinearLayout, ApplyIsXorOfBases) {
  auto l = make({{"register", {{1, 0}, {0, 2}}}, {"lane", {{2, 1}}}},
                {{"dim0", 4}, {"dim1", 4}});
  EXPECT_EQ(l.apply({{"register", 3}}), (Point{{"dim0", 1}, {"dim1", 2}}));
  EXPECT_EQ(l.apply({{"register", 1}, {"lane", 1}}),
            (Point{{"dim0", 3}, {"dim1", 1}}));
  EXPECT_EQ(l.apply({}), (Point{{"dim0", 0}, {"dim1", 0}}));
}

TEST(LinearLayout, OneDimensionalBuilders) {
  auto id = LinearLayout::identity1D(16, "lane", "dim0");
  auto strided = LinearLayout::strided1D(8, 4, "register", "dim1");
  auto zeros = LinearLayout::zeros1D(4, "warp", "dim0", 2);
  EXPECT_EQ(strided.getOutDimSize("dim1"), 32);
  EXPECT_EQ(zeros.getOutDimSize("dim0"), 2);
  for (int32_t i = 0; i < 16; ++i)
    EXPECT_EQ(id.apply({{"lane", i}}), (Point{{"dim0", i}}));
  for (int32_t i = 0; i < 8; ++i)
    EXPECT_EQ(strided.apply({{"register", i}}), (Point{{"dim1", 4 * i}}));
  for (int32_t i = 0; i < 4; ++i)
    EXPECT_EQ(zeros.apply({{"warp", i}}), (Point{{"dim0", 0}}));
  EXPECT_EQ(LinearLayout::identity1D(1, "a", "b").getTotalInDimSize(), 1);
}

TEST(LinearLayout, CreateRejectsMalformedBases) {
  auto check = [](llvm::Expected<LinearLayout> l, llvm::StringRef message) {
    ASSERT_FALSE(bool(l));
    EXPECT_EQ(llvm::toString(l.takeError()), message.str());
  };
  check(LinearLayout::create({}, {{"dim0", 6}}),
        "output dimension 'dim0' has size 6, which is not a power of two");
  check(LinearLayout::create({{"lane", {{1, 0}}}}, {{"dim0", 4}}),
        "basis 0 of 'lane' has 2 values but there are 1 output dimensions");
  check(LinearLayout::create({{"lane", {{4}}}}, {{"dim0", 4}}),
        "basis 0 of 'lane' maps to 4 in 'dim0', outside its size 4");
  auto minimal = LinearLayout::createWithMinimalOuts(
      {{"lane", {{1, 0}, {4, 0}}}, {"warp", {{0, 2}}}}, {"dim0", "dim1"});
  ASSERT_TRUE(bool(minimal));
  EXPECT_EQ(minimal->getOutDimSize("dim0"), 8);
  EXPECT_EQ(minimal->getOutDimSize("dim1"), 4);
}

/// (A * B)(a, b) puts B's values above A's in every shared dimension.
TEST(LinearLayout, ProductMatchesEnumeration) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 50; ++trial) {
    auto a = randomLayout(rng, {{"register", 2}, {"lane", 2}},
                          {{"dim0", 4}, {"dim1", 2}});
    auto b = randomLayout(rng, {{"register", 1}, {"warp", 2}},
                          {{"dim1", 4}, {"dim2", 2}});
    auto p = a * b;
    EXPECT_EQ(p.getInDimNames(),
              (llvm::SmallVector<std::string>{"register", "lane", "warp"}));
    EXPECT_EQ(p.getOutDimNames(),
              (llvm::SmallVector<std::string>{"dim0", "dim1", "dim2"}));
    EXPECT_EQ(p.getInDimSize("register"), 8);
    EXPECT_EQ(p.getOutDimSize("dim1"), 8);
    for (const Point &x : allInputs(p)) {
      int32_t reg = valueOf(x, "register");
      auto ya = a.apply({{"register", reg & 3}, {"lane", valueOf(x, "lane")}});
      auto yb = b.apply({{"register", reg >> 2}, {"warp", valueOf(x, "warp")}});
      Point expected{{"dim0", valueOf(ya, "dim0")},
                     {"dim1", valueOf(ya, "dim1") ^ (valueOf(yb, "dim1") * 2)},
                     {"dim2", valueOf(yb, "dim2")}};
      EXPECT_EQ(p.apply(x), expected);
    }
  }
}

TEST(LinearLayout, ComposeMatchesEnumeration) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 50; ++trial) {
    auto inner = randomLayout(rng, {{"register", 3}, {"lane", 3}},
                              {{"offset", 16}, {"block", 2}});
    auto outer = randomLayout(rng, {{"offset", 4}, {"block", 1}},
                              {{"dim0", 8}, {"dim1", 8}});
    auto c = inner.compose(outer);
    for (const Point &x : allInputs(inner))
      EXPECT_EQ(c.apply(x), outer.apply(inner.apply(x)));
  }
}

TEST(LinearLayout, ComposeIsAssociative) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 30; ++trial) {
    auto a = randomLayout(rng, {{"x", 3}}, {{"y", 8}});
    auto b = randomLayout(rng, {{"y", 3}}, {{"z", 16}});
    auto c = randomLayout(rng, {{"z", 4}}, {{"w", 4}});
    EXPECT_EQ(a.compose(b).compose(c), a.compose(b.compose(c)));
  }
}

TEST(LinearLayout, InverseUndoesTheLayout) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 50; ++trial) {
    auto l = randomBijection(rng, 2 + trial % 7);
    auto inv = l.invert();
    ASSERT_TRUE(inv.has_value());
    for (const Point &x : allInputs(l))
      EXPECT_EQ(inv->apply(l.apply(x)), x);
    for (const Point &y : allInputs(*inv))
      EXPECT_EQ(l.apply(inv->apply(y)), y);
    // inverse ∘ layout = identity
    auto identity =
        LinearLayout::identity1D(l.getInDimSize("register"), "register",
                                 "register") *
        LinearLayout::identity1D(l.getInDimSize("lane"), "lane", "lane");
    EXPECT_EQ(l.compose(*inv), identity);
  }
}

TEST(LinearLayout, NonBijectiveLayoutsHaveNoInverse) {
  // Two lanes hold the same element.
  auto broadcast = make({{"lane", {{1}, {0}}}}, {{"dim0", 2}});
  EXPECT_FALSE(broadcast.invert().has_value());
  EXPECT_TRUE(broadcast.isSurjective());
  EXPECT_FALSE(broadcast.isInjective());
  // Half of the tensor is held by nobody.
  auto partial = make({{"lane", {{2}}}}, {{"dim0", 4}});
  EXPECT_FALSE(partial.invert().has_value());
  EXPECT_FALSE(partial.isSurjective());
  EXPECT_TRUE(partial.isInjective());
}

/// outer(C(x)) == this(x) for every x, also when outer holds elements twice.
TEST(LinearLayout, InvertAndComposeFindsWhereEachElementIs) {
  std::mt19937 rng(5);
  int solved = 0;
  for (int trial = 0; trial < 100; ++trial) {
    auto src = randomLayout(rng, {{"register", 2}, {"lane", 3}, {"warp", 1}},
                            {{"dim0", 8}, {"dim1", 4}});
    auto dst = randomLayout(rng, {{"register", 3}, {"lane", 2}},
                            {{"dim1", 4}, {"dim0", 8}});
    auto c = src.invertAndCompose(dst);
    if (!dst.isSurjective()) {
      // Where dst misses an element src has, there is no answer.
      std::set<std::vector<int32_t>> held;
      for (const Point &y : allInputs(dst)) {
        auto out = dst.apply(y);
        held.insert({valueOf(out, "dim0"), valueOf(out, "dim1")});
      }
      bool covered = true;
      for (const Point &x : allInputs(src)) {
        auto out = src.apply(x);
        covered &= held.count({valueOf(out, "dim0"), valueOf(out, "dim1")}) > 0;
      }
      EXPECT_EQ(c.has_value(), covered);
      if (!c)
        continue;
    }
    ASSERT_TRUE(c.has_value());
    ++solved;
    for (const Point &x : allInputs(src)) {
      auto out = dst.apply(c->apply(x));
      EXPECT_EQ(valueOf(out, "dim0"), valueOf(src.apply(x), "dim0"));
      EXPECT_EQ(valueOf(out, "dim1"), valueOf(src.apply(x), "dim1"));
    }
  }
  EXPECT_GT(solved, 10);
}

TEST(LinearLayout, TransposeAndReshapeKeepTheMap) {
  std::mt19937 rng(6);
  auto l = randomLayout(rng, {{"register", 2}, {"lane", 3}},
                        {{"dim0", 8}, {"dim1", 4}});
  auto t = l.transposeIns({"lane", "register"}).transposeOuts({"dim1", "dim0"});
  for (const Point &x : allInputs(l)) {
    auto y = l.apply(x), z = t.apply(x);
    EXPECT_EQ(valueOf(y, "dim0"), valueOf(z, "dim0"));
    EXPECT_EQ(valueOf(y, "dim1"), valueOf(z, "dim1"));
    EXPECT_EQ(z[0].first, "dim1");
  }
  // reshapeIns regroups input bits: register (2 bits) + lane (3 bits) ->
  // thread (5 bits), low bits first.
  auto flatIn = l.reshapeIns({{"thread", 32}});
  // reshapeOuts regroups output bits: dim0 (3 bits) + dim1 (2 bits) -> flat.
  auto flatOut = l.reshapeOuts({{"flat", 32}});
  for (const Point &x : allInputs(l)) {
    int32_t thread = valueOf(x, "register") | (valueOf(x, "lane") << 2);
    EXPECT_EQ(flatIn.apply({{"thread", thread}}), l.apply(x));
    auto y = l.apply(x);
    EXPECT_EQ(valueOf(flatOut.apply(x), "flat"),
              valueOf(y, "dim0") | (valueOf(y, "dim1") << 3));
  }
}

TEST(LinearLayout, SublayoutRestrictsAndProjects) {
  std::mt19937 rng(7);
  auto l = randomLayout(rng, {{"register", 2}, {"lane", 2}, {"warp", 1}},
                        {{"dim0", 4}, {"dim1", 8}});
  auto sub = l.sublayout({"lane", "warp"}, {"dim1"});
  EXPECT_EQ(sub.getInDimNames(),
            (llvm::SmallVector<std::string>{"lane", "warp"}));
  for (const Point &x : allInputs(sub))
    EXPECT_EQ(valueOf(sub.apply(x), "dim1"), valueOf(l.apply(x), "dim1"));
  auto regOnly = make({{"register", {{1, 0}}}, {"lane", {{0, 1}}}},
                      {{"dim0", 2}, {"dim1", 2}});
  EXPECT_TRUE(regOnly.sublayoutIsZero({"lane"}, {"dim0"}));
  EXPECT_FALSE(regOnly.sublayoutIsZero({"lane"}, {"dim1"}));
}

/// A bit is free when its image is reachable with earlier bits only.
TEST(LinearLayout, FreeVariablesMatchEnumeration) {
  std::mt19937 rng(8);
  for (int trial = 0; trial < 50; ++trial) {
    auto l = randomLayout(rng, {{"register", 2}, {"lane", 3}},
                          {{"dim0", 4}, {"dim1", 2}});
    auto masks = l.getFreeVariableMasks();
    std::set<std::vector<int32_t>> reachable{{0, 0}};
    int freeBits = 0;
    for (auto [i, in] : llvm::enumerate(l.getInDims()))
      for (size_t bit = 0; bit < in.bases.size(); ++bit) {
        std::vector<int32_t> image = in.bases[bit];
        bool isFree = reachable.count(image) > 0;
        EXPECT_EQ(isFree, bool(masks[i].second & (1 << bit)));
        freeBits += isFree;
        std::set<std::vector<int32_t>> next = reachable;
        for (const auto &r : reachable)
          next.insert({r[0] ^ image[0], r[1] ^ image[1]});
        reachable = next;
      }
    // Each free bit halves the number of distinct elements held.
    std::set<Point> distinct;
    for (const Point &x : allInputs(l))
      distinct.insert(l.apply(x));
    EXPECT_EQ(int64_t(distinct.size()), l.getTotalInDimSize() >> freeBits);
    EXPECT_EQ(l.getRank(), 5 - freeBits);
  }
}

TEST(LinearLayout, ConsecutiveRegistersGiveTheVectorWidth) {
  // 4 registers along dim1, then one along dim0.
  auto l = make({{"register", {{0, 1}, {0, 2}, {1, 0}}}, {"lane", {{0, 4}}}},
                {{"dim0", 2}, {"dim1", 8}});
  EXPECT_EQ(l.getNumConsecutive("register", "dim1"), 4);
  EXPECT_EQ(l.getNumConsecutive("register", "dim0"), 1);
  EXPECT_EQ(l.getNumConsecutive("lane", "dim1"), 1);
  std::mt19937 rng(9);
  for (int trial = 0; trial < 50; ++trial) {
    auto r = randomLayout(rng, {{"register", 3}}, {{"dim0", 2}, {"dim1", 4}});
    int32_t expected = 0;
    while (expected < 8) {
      auto y = r.apply({{"register", expected}});
      if (valueOf(y, "dim0") != 0 || valueOf(y, "dim1") != expected)
        break;
      ++expected;
    }
    // The width is the largest power of two with all of [0, w) consecutive.
    int32_t width = 1;
    while (width * 2 <= expected)
      width *= 2;
    EXPECT_EQ(r.getNumConsecutive("register", "dim1"), width);
  }
}

TEST(LinearLayout, EqualityAndPrinting) {
  auto a = make({{"lane", {{1}, {2}}}}, {{"dim0", 4}});
  auto b = LinearLayout::identity1D(4, "lane", "dim0");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, LinearLayout::identity1D(4, "register", "dim0"));
  EXPECT_NE(a, a.transposeOuts({"dim0"}).reshapeOuts({{"dim0", 4}}) *
                   LinearLayout::zeros1D(2, "warp", "dim0"));
  EXPECT_EQ(a.toString(), " - lane=1 -> (1)\n - lane=2 -> (2)\n"
                          "where out dims are: [dim0 (size 4)]");
}

} // namespace
