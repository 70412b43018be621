/* SPDX-License-Identifier: MIT */
/*
 * spec_field.h - typed access to the members of a spec's JSON objects.
 *
 * Each getter reports its own error (missing member at the object, wrong
 * type at the value) so the validators read as a list of rules.  `owner`
 * names the object in messages: "the spec", "function \"deflate\"", ...
 */
#ifndef SPEC_FIELD_H
#define SPEC_FIELD_H

#include <jansson.h>
#include <stdbool.h>

#include "spec_diag.h"

/* 1 when present, 0 when absent and optional, -1 after an error. */
int spec_field_str(struct spec_ctx *c, json_t *obj, const char *key, const char *owner,
                   bool required, const char **out);
int spec_field_bool(struct spec_ctx *c, json_t *obj, const char *key, const char *owner, bool *out);
int spec_field_array(struct spec_ctx *c, json_t *obj, const char *key, const char *owner,
                     bool required, json_t **out);
int spec_field_object(struct spec_ctx *c, json_t *obj, const char *key, const char *owner,
                      json_t **out);

/* Fails on the first member (in document order) not in the NULL-ended
 * `allowed` list. */
int spec_check_keys(struct spec_ctx *c, json_t *obj, const char *const *allowed, const char *owner);

#endif /* SPEC_FIELD_H */
