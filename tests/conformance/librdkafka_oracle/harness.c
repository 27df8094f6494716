/*
 * kgroup librdkafka assignor ORACLE harness.
 *
 * Runs the real librdkafka client-side assignors (rd_kafka_assignor_run ->
 * rkas_assign_cb, the same path librdkafka's own ut_* assignor unit tests
 * use) and, for COOPERATIVE assignors, the leader's
 * rd_kafka_cooperative_protocol_adjust_assignment() (static in
 * rdkafka_cgrp.c, hence the #include below: this translation unit then
 * provides every symbol of rdkafka_cgrp.o, so the archive member is not
 * pulled in from librdkafka.a).
 *
 * Input (stdin, produced by oracle/run_oracle.py), whitespace separated,
 * names must not contain whitespace; "~" means NULL:
 *   CASE <id> <assignor>
 *   T <topic_cnt>
 *     <topic> <partition_cnt> <has_racks 0|1>
 *       [if has_racks: per partition: <rack_cnt> <rack>...]
 *   M <member_cnt>
 *     <member_id> <group_instance_id|~> <rack|~> <generation>
 *       <sub_cnt> <topic>... <owned_cnt> (<topic> <partition>)...
 *   END
 * Output: one JSON object per case on stdout.
 */
#include "rdkafka_cgrp.c"

#include <stdio.h>

static rd_kafka_t *rks[8];
static char *rk_names[8];
static int rk_cnt = 0;

static rd_kafka_t *get_rk(const char *assignor, char *errstr, size_t sz) {
        int i;
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;
        for (i = 0; i < rk_cnt; i++)
                if (!strcmp(rk_names[i], assignor))
                        return rks[i];
        conf = rd_kafka_conf_new();
        if (rd_kafka_conf_set(conf, "group.id", "oracle", errstr, sz) ||
            rd_kafka_conf_set(conf, "partition.assignment.strategy", assignor,
                              errstr, sz))
                return NULL;
        if (getenv("RDK_DEBUG"))
                rd_kafka_conf_set(conf, "debug", getenv("RDK_DEBUG"), NULL, 0);
        rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sz);
        if (!rk)
                return NULL;
        rks[rk_cnt]      = rk;
        rk_names[rk_cnt] = strdup(assignor);
        rk_cnt++;
        return rk;
}

static void json_str(const char *s) {
        putchar('"');
        for (; *s; s++) {
                if (*s == '"' || *s == '\\')
                        putchar('\\');
                putchar(*s);
        }
        putchar('"');
}

static int cmp_toppar(const void *a, const void *b) {
        return rd_kafka_topic_partition_cmp(a, b);
}

static void print_assignment(rd_kafka_group_member_t *members, int cnt) {
        int i, j;
        putchar('{');
        for (i = 0; i < cnt; i++) {
                rd_kafka_topic_partition_list_t *l =
                    rd_kafka_topic_partition_list_copy(
                        members[i].rkgm_assignment);
                qsort(l->elems, l->cnt, sizeof(*l->elems), cmp_toppar);
                if (i)
                        putchar(',');
                json_str(members[i].rkgm_member_id->str);
                printf(":[");
                for (j = 0; j < l->cnt; j++) {
                        if (j)
                                putchar(',');
                        putchar('[');
                        json_str(l->elems[j].topic);
                        printf(",%d]", (int)l->elems[j].partition);
                }
                putchar(']');
                rd_kafka_topic_partition_list_destroy(l);
        }
        putchar('}');
}

static int cmp_strp(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void) {
        char tok[512], id[512], assignor[128];
        char errstr[512];

        setvbuf(stdout, NULL, _IOFBF, 1 << 16);

        while (scanf("%511s", tok) == 1) {
                int topic_cnt, member_cnt, i, j, k;
                rd_kafka_metadata_topic_t *mtopics;
                int *has_racks;
                int **rack_cnts;
                char ***racks;
                rd_kafka_metadata_t *md;
                rd_kafka_metadata_internal_t *mdi;
                rd_kafka_group_member_t *members;
                rd_kafka_t *rk;
                const rd_kafka_assignor_t *rkas;
                rd_kafka_resp_err_t err;

                if (strcmp(tok, "CASE"))
                        return 2;
                if (scanf("%511s %127s", id, assignor) != 2)
                        return 2;

                /* Topics */
                if (scanf("%511s %d", tok, &topic_cnt) != 2)
                        return 2;
                mtopics   = calloc(topic_cnt + 1, sizeof(*mtopics));
                has_racks = calloc(topic_cnt + 1, sizeof(int));
                rack_cnts = calloc(topic_cnt + 1, sizeof(int *));
                racks     = calloc(topic_cnt + 1, sizeof(char **));
                for (i = 0; i < topic_cnt; i++) {
                        int pc;
                        if (scanf("%511s %d %d", tok, &pc, &has_racks[i]) != 3)
                                return 2;
                        mtopics[i].topic         = strdup(tok);
                        mtopics[i].partition_cnt = pc;
                        if (has_racks[i]) {
                                int rk_total = 0;
                                rack_cnts[i] = calloc(pc + 1, sizeof(int));
                                racks[i]     = calloc(pc * 16 + 1,
                                                      sizeof(char *));
                                for (j = 0; j < pc; j++) {
                                        if (scanf("%d", &rack_cnts[i][j]) != 1)
                                                return 2;
                                        for (k = 0; k < rack_cnts[i][j]; k++) {
                                                if (scanf("%511s", tok) != 1)
                                                        return 2;
                                                racks[i][j * 16 + k] =
                                                    strdup(tok);
                                        }
                                        /* racks are sorted+deduped in
                                         * librdkafka metadata */
                                        qsort(&racks[i][j * 16],
                                              rack_cnts[i][j], sizeof(char *),
                                              cmp_strp);
                                        rk_total += rack_cnts[i][j];
                                }
                        }
                }
                md  = rd_kafka_metadata_new_topic_mock(mtopics, topic_cnt, -1,
                                                       0);
                mdi = rd_kafka_metadata_get_internal(md);
                for (i = 0; i < topic_cnt; i++) {
                        if (!has_racks[i])
                                continue;
                        for (j = 0; j < mtopics[i].partition_cnt; j++) {
                                int n = rack_cnts[i][j];
                                mdi->topics[i].partitions[j].racks_cnt = n;
                                mdi->topics[i].partitions[j].racks =
                                    rd_malloc(sizeof(char *) * (n ? n : 1));
                                for (k = 0; k < n; k++)
                                        mdi->topics[i].partitions[j].racks[k] =
                                            racks[i][j * 16 + k];
                        }
                }

                /* Members */
                if (scanf("%511s %d", tok, &member_cnt) != 2)
                        return 2;
                members = calloc(member_cnt + 1, sizeof(*members));
                for (i = 0; i < member_cnt; i++) {
                        rd_kafka_group_member_t *rkgm = &members[i];
                        char mid[512], iid[512], rack[512];
                        int gen, sub_cnt, owned_cnt;
                        if (scanf("%511s %511s %511s %d %d", mid, iid, rack,
                                  &gen, &sub_cnt) != 5)
                                return 2;
                        rkgm->rkgm_member_id = rd_kafkap_str_new(mid, -1);
                        rkgm->rkgm_group_instance_id = rd_kafkap_str_new(
                            strcmp(iid, "~") ? iid : NULL, -1);
                        /* As parsed from v3 MemberMetadata: always a kstr,
                         * NULL string when the consumer has no client.rack */
                        rkgm->rkgm_rack_id = rd_kafkap_str_new(
                            strcmp(rack, "~") ? rack : NULL, -1);
                        rd_list_init(&rkgm->rkgm_eligible, 0, NULL);
                        rkgm->rkgm_subscription =
                            rd_kafka_topic_partition_list_new(sub_cnt + 1);
                        for (j = 0; j < sub_cnt; j++) {
                                if (scanf("%511s", tok) != 1)
                                        return 2;
                                rd_kafka_topic_partition_list_add(
                                    rkgm->rkgm_subscription, tok,
                                    RD_KAFKA_PARTITION_UA);
                        }
                        if (scanf("%d", &owned_cnt) != 1)
                                return 2;
                        rkgm->rkgm_owned =
                            rd_kafka_topic_partition_list_new(owned_cnt + 1);
                        for (j = 0; j < owned_cnt; j++) {
                                int p;
                                if (scanf("%511s %d", tok, &p) != 2)
                                        return 2;
                                rd_kafka_topic_partition_list_add(
                                    rkgm->rkgm_owned, tok, p);
                        }
                        rkgm->rkgm_generation = gen;
                        rkgm->rkgm_assignment =
                            rd_kafka_topic_partition_list_new(
                                rkgm->rkgm_subscription->size);
                }
                if (scanf("%511s", tok) != 1 || strcmp(tok, "END"))
                        return 2;

                printf("{\"id\":");
                json_str(id);
                rk = get_rk(assignor, errstr, sizeof(errstr));
                if (!rk) {
                        printf(",\"error\":");
                        json_str(errstr);
                        printf("}\n");
                } else {
                        rkas = rd_kafka_assignor_find(rk, assignor);
                        *errstr = '\0';
                        err     = rd_kafka_assignor_run(rk->rk_cgrp, rkas, md,
                                                    members, member_cnt,
                                                    errstr, sizeof(errstr));
                        if (err) {
                                printf(",\"error\":");
                                json_str(errstr);
                                printf("}\n");
                        } else {
                                printf(",\"raw\":");
                                print_assignment(members, member_cnt);
                                if (rkas->rkas_protocol ==
                                    RD_KAFKA_REBALANCE_PROTOCOL_COOPERATIVE) {
                                        rd_kafka_cooperative_protocol_adjust_assignment(
                                            rk->rk_cgrp, members, member_cnt);
                                        printf(",\"sync\":");
                                        print_assignment(members, member_cnt);
                                }
                                printf("}\n");
                        }
                }
                fflush(stdout);

                for (i = 0; i < member_cnt; i++)
                        rd_kafka_group_member_clear(&members[i]);
                free(members);
                ut_destroy_metadata(md); /* frees racks arrays */
                for (i = 0; i < topic_cnt; i++) {
                        free((char *)mtopics[i].topic);
                        free(rack_cnts[i]);
                        /* rack strings leak: harmless for a one-shot tool */
                        free(racks[i]);
                }
                free(mtopics);
                free(has_racks);
                free(rack_cnts);
                free(racks);
        }
        for (int i2 = 0; i2 < rk_cnt; i2++)
                rd_kafka_destroy(rks[i2]);
        return 0;
}
