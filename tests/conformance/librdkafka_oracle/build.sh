#!/bin/sh
# Builds the librdkafka assignor oracle from a configured librdkafka source tree with src/librdkafka.a built
# (see README.md). Usage: sh build.sh LIBRDKAFKA_SRC_DIR
set -e
SRC=${1:?usage: sh build.sh LIBRDKAFKA_SRC_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
gcc -O1 -g -w -I"$SRC" -I"$SRC/src" -o "$HERE/rdk_oracle" "$HERE/harness.c" \
    "$SRC/src/librdkafka.a" -lm -ldl -lpthread -lrt
echo built "$HERE/rdk_oracle"
