// How the memory estimate counts storage: held inputs, views, getitems, frees.
#include <gtest/gtest.h>

#include "remat/records/live_storage.h"

namespace remat::records {
namespace {

TEST(LiveStorage, HeldInputsStayAndViewsKeepTheirBase) {
  LiveStorage s(6, /*track_alive=*/true);
  s.add_outside(10);
  s.hold(0, 100);     // a parameter
  s.allocate(1, 40);  // an activation
  EXPECT_EQ(s.live(), 150);
  s.alias(2, 1);  // view of the activation: no bytes
  s.alias(3, 0);  // t() of the parameter
  EXPECT_EQ(s.live(), 150);
  s.release(1);  // the base dies first: its view keeps the storage
  EXPECT_EQ(s.live(), 150);
  s.release(2);
  EXPECT_EQ(s.live(), 110);
  s.release(2);  // twice: nothing more
  s.release(0);  // a held input is never freed
  s.release(3);
  EXPECT_EQ(s.live(), 110);
  ASSERT_EQ(s.alive().size(), 1u);
  EXPECT_EQ(*s.alive().begin(), (std::pair<int64_t, size_t>{100, 0}));
}

TEST(LiveStorage, GetitemsTakeTheirElementsFromTheTuple) {
  LiveStorage s(5);
  s.allocate(0, 30);      // (out 20, mean 5, rstd 5)
  s.take_from(1, 0, 20);  // getitem 0
  EXPECT_EQ(s.live(), 30);
  s.take_from(2, 0, 5);
  s.release(0);  // the tuple dies once read: the unread element goes
  EXPECT_EQ(s.live(), 25);
  s.release(1);
  EXPECT_EQ(s.live(), 5);
  // A tuple of unknown size gives nothing: the getitem holds its own bytes.
  s.allocate(3, 0);
  s.take_from(4, 3, 8);
  EXPECT_EQ(s.live(), 13);
}

TEST(LiveStorage, GetitemsOfAViewsTupleAreViews) {
  LiveStorage s(4);
  s.allocate(0, 64);
  s.alias(1, 0);          // split: a tuple of views
  s.take_from(2, 1, 32);  // split[0]: a view of the same storage
  EXPECT_EQ(s.live(), 64);
  s.release(0);
  s.release(1);
  EXPECT_EQ(s.live(), 64);
  s.release(2);
  EXPECT_EQ(s.live(), 0);
}

}  // namespace
}  // namespace remat::records
