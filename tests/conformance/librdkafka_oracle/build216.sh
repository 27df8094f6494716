#!/bin/sh
# Builds rdk_oracle216: the harness driving the librdkafka 2.16.0 binary from the confluent-kafka 2.16.1
# wheel (headers from a v2.15.0 source tree). Usage: sh build216.sh LIBRDKAFKA_SRC_DIR path/to/librdkafka-*.so.1
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${1:?usage: sh build216.sh LIBRDKAFKA_SRC_DIR LIBRDKAFKA_SO}
SO=${2:?usage: sh build216.sh LIBRDKAFKA_SRC_DIR LIBRDKAFKA_SO}
{
  for s in rd_kafka_version rd_kafka_assignor_run rd_kafka_assignor_find rd_kafka_metadata_new_topic_mock ut_destroy_metadata rd_list_init rd_kafka_group_member_clear; do
    a=$(nm "$SO" | awk -v s="$s" '$3==s {print $1; exit}')
    [ -n "$a" ] || { echo "missing $s" >&2; exit 1; }
    echo "#define OFF_$s 0x$a"
  done
  # rk->rk_cgrp offset: first memory operand of rd_kafka_memberid (mov OFF(%rdi),%rax)
  off=$(objdump -d --no-show-raw-insn "$SO" | awk '/<rd_kafka_memberid>:/,/ret/' | grep -oE 'mov +0x[0-9a-f]+\(%rdi\)' | head -1 | grep -oE '0x[0-9a-f]+')
  echo "#define RK_CGRP_OFF $off"
} > "$HERE/offsets.h"
cat "$HERE/offsets.h"
gcc -O1 -g -w -I"$HERE" -I"$SRC" -I"$SRC/src" -o "$HERE/rdk_oracle216" "$HERE/harness216.c" "$SO" -Wl,-rpath,"$(dirname "$SO")" -ldl -lpthread -lm
echo "run with: RDK_SO=$SO $HERE/rdk_oracle216"
