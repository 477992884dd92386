//===- TensorMapTest.cpp - tensor-map descriptions read at launch ---------===//
//
// The compiler describes each tensor map a kernel takes in a line of text
// (runtime/TensorMaps.h); at launch the request is made from the
// parameters it names: 32- and 64-bit arguments and constants, strides in
// bytes. Unreadable descriptions are errors, not guesses.
//
//===----------------------------------------------------------------------===//

#include "runtime/TensorMaps.h"

#include "gtest/gtest.h"

using namespace mlir::tile::runtime;

namespace {

TEST(TensorMapTest, RequestFromTheArguments) {
  TensorMapSpec spec("base=arg0 shape=arg1/32,96 strides=arg2/64 box=128,32 "
                     "dtype=bf16 swizzle=64 nan=1");
  uint64_t base = 0x7f0000001000;
  uint32_t rows = 300;
  int64_t stride = 112;
  void *args[] = {&base, &rows, &stride};
  TensorMapRequest r = spec.requestFor(args);
  EXPECT_EQ(r.dtype, "bf16");
  EXPECT_EQ(r.address, base);
  EXPECT_EQ(r.shape, (std::vector<uint64_t>{300, 96}));
  EXPECT_EQ(r.strides, (std::vector<uint64_t>{224})); // bytes
  EXPECT_EQ(r.box, (std::vector<uint32_t>{128, 32}));
  EXPECT_EQ(r.swizzle, 64u);
  EXPECT_TRUE(r.nanPadding);
}

TEST(TensorMapTest, ThreeDimensionsOfBytes) {
  TensorMapSpec spec("base=arg1 shape=arg0/32,arg0/32,64 "
                     "strides=arg2/32,64 box=2,16,64 dtype=fp8e4nv "
                     "swizzle=0 nan=0");
  uint32_t size = 5, stride = 4096;
  uint64_t base = 256;
  void *args[] = {&size, &base, &stride};
  TensorMapRequest r = spec.requestFor(args);
  EXPECT_EQ(r.shape, (std::vector<uint64_t>{5, 5, 64}));
  EXPECT_EQ(r.strides, (std::vector<uint64_t>{4096, 64}));
  EXPECT_FALSE(r.nanPadding);
}

TEST(TensorMapTest, UnreadableDescriptionsAreErrors) {
  for (const char *text :
       {"", "base=arg0 shape=arg1/32 strides= box=8 dtype=fp16",
        "base=arg0 shape=arg1/16,8 strides=arg2/64 box=8,8 dtype=fp16",
        "base=arg0 shape=8,8 strides=16 box=8,8 dtype=fp99",
        "base=arg0 shape=8,8 strides=16,16 box=8,8 dtype=fp16",
        "base=arg0 shape=8,8 strides=16 box=8 dtype=fp16",
        "base=arg0 shape=8,x strides=16 box=8,8 dtype=fp16",
        "base=arg0 shape=8,8 strides=16 box=8,8 dtype=fp16 swizzle=wide"})
    EXPECT_THROW(TensorMapSpec{text}, DriverError) << text;
}

TEST(TensorMapTest, DriversWithoutTensorMapsSaySo) {
  class NoMaps : public Driver {
  public:
    std::string name() const override { return "hip"; }
    int deviceCount() override { return 0; }
    DeviceInfo deviceInfo(int) override { return {}; }
    void setDevice(int) override {}
    std::unique_ptr<Module> loadModule(const std::string &) override {
      return nullptr;
    }
    uint64_t allocate(size_t) override { return 0; }
    void release(uint64_t) override {}
    void copyToDevice(uint64_t, const void *, size_t) override {}
    void copyToHost(void *, uint64_t, size_t) override {}
    void synchronize() override {}
    uint64_t createEvent() override { return 0; }
    void recordEvent(uint64_t, void *) override {}
    float elapsedMilliseconds(uint64_t, uint64_t) override { return 0; }
    void destroyEvent(uint64_t) override {}
    void fill(uint64_t, uint32_t, size_t, void *) override {}
  } driver;
  TensorMapRequest request;
  request.dtype = "fp16";
  try {
    driver.encodeTensorMap(request);
    FAIL() << "no error";
  } catch (const DriverError &e) {
    EXPECT_NE(std::string(e.what()).find("hip driver has no tensor maps"),
              std::string::npos);
  }
}

} // namespace
