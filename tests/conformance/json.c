/* json.c - recursive-descent JSON parser with depth and size limits. */
#include "json.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const char *s; size_t pos; char *err; size_t errcap; int depth; } jp;

static void jfail(jp *p, const char *what) {
    if (p->err && p->err[0] == 0) snprintf(p->err, p->errcap, "%s at offset %zu", what, p->pos);
}
static void skip_ws(jp *p) {
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' || p->s[p->pos] == '\r') p->pos++;
}
static json_value *new_value(json_type t) {
    json_value *v = (json_value *)calloc(1, sizeof(json_value));
    if (v) v->type = t;
    return v;
}
static json_value *parse_value(jp *p);

static char *parse_string_raw(jp *p) {
    if (p->s[p->pos] != '"') { jfail(p, "expected string"); return NULL; }
    p->pos++;
    size_t cap = 16, n = 0;
    char *out = (char *)malloc(cap);
    if (!out) return NULL;
    for (;;) {
        char c = p->s[p->pos];
        if (c == 0) { free(out); jfail(p, "unterminated string"); return NULL; }
        p->pos++;
        if (c == '"') break;
        if (c == '\\') {
            char e = p->s[p->pos++];
            switch (e) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                unsigned v = 0;
                for (int k = 0; k < 4; k++) {
                    char h = p->s[p->pos++];
                    v <<= 4;
                    if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
                    else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
                    else { free(out); jfail(p, "bad \\u escape"); return NULL; }
                }
                c = v < 128 ? (char)v : '?';
                break;
            }
            default: free(out); jfail(p, "bad escape"); return NULL;
            }
        }
        if (n + 2 > cap) {
            cap *= 2;
            char *nb = (char *)realloc(out, cap);
            if (!nb) { free(out); return NULL; }
            out = nb;
        }
        out[n++] = c;
    }
    out[n] = 0;
    return out;
}

static json_value *parse_container(jp *p, int is_obj) {
    json_value *v = new_value(is_obj ? JSON_OBJECT : JSON_ARRAY);
    if (!v) return NULL;
    p->pos++;
    skip_ws(p);
    char close = is_obj ? '}' : ']';
    if (p->s[p->pos] == close) { p->pos++; return v; }
    int cap = 0;
    for (;;) {
        skip_ws(p);
        char *key = NULL;
        if (is_obj) {
            key = parse_string_raw(p);
            if (!key) { json_free(v); return NULL; }
            skip_ws(p);
            if (p->s[p->pos] != ':') { free(key); json_free(v); jfail(p, "expected ':'"); return NULL; }
            p->pos++;
        }
        json_value *item = parse_value(p);
        if (!item) { free(key); json_free(v); return NULL; }
        if (v->count == cap) {
            cap = cap ? cap * 2 : 8;
            json_value **ni = (json_value **)realloc(v->items, sizeof(json_value *) * (size_t)cap);
            char **nk = is_obj ? (char **)realloc(v->keys, sizeof(char *) * (size_t)cap) : NULL;
            if (!ni || (is_obj && !nk)) { free(key); json_free(item); if (ni) v->items = ni; if (nk) v->keys = nk; json_free(v); return NULL; }
            v->items = ni;
            if (is_obj) v->keys = nk;
        }
        v->items[v->count] = item;
        if (is_obj) v->keys[v->count] = key;
        v->count++;
        skip_ws(p);
        if (p->s[p->pos] == ',') { p->pos++; continue; }
        if (p->s[p->pos] == close) { p->pos++; return v; }
        json_free(v);
        jfail(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
        return NULL;
    }
}

static json_value *parse_value(jp *p) {
    skip_ws(p);
    if (++p->depth > 64) { jfail(p, "nesting too deep"); return NULL; }
    json_value *v = NULL;
    char c = p->s[p->pos];
    if (c == '{' || c == '[') v = parse_container(p, c == '{');
    else if (c == '"') {
        char *s = parse_string_raw(p);
        if (s) { v = new_value(JSON_STRING); if (v) v->string = s; else free(s); }
    } else if (!strncmp(p->s + p->pos, "true", 4)) { p->pos += 4; v = new_value(JSON_BOOL); if (v) v->number = 1; }
    else if (!strncmp(p->s + p->pos, "false", 5)) { p->pos += 5; v = new_value(JSON_BOOL); }
    else if (!strncmp(p->s + p->pos, "null", 4)) { p->pos += 4; v = new_value(JSON_NULL); }
    else if (!strncmp(p->s + p->pos, "NaN", 3)) { p->pos += 3; v = new_value(JSON_NUMBER); if (v) v->number = 0.0 / 0.0; }
    else if (!strncmp(p->s + p->pos, "Infinity", 8)) { p->pos += 8; v = new_value(JSON_NUMBER); if (v) v->number = 1.0 / 0.0; }
    else if (!strncmp(p->s + p->pos, "-Infinity", 9)) { p->pos += 9; v = new_value(JSON_NUMBER); if (v) v->number = -1.0 / 0.0; }
    else if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        double d = strtod(p->s + p->pos, &end);
        if (end == p->s + p->pos) { jfail(p, "bad number"); }
        else { p->pos = (size_t)(end - p->s); v = new_value(JSON_NUMBER); if (v) v->number = d; }
    } else jfail(p, "unexpected character");
    p->depth--;
    return v;
}

json_value *json_parse(const char *text, char *err, size_t errcap) {
    jp p;
    p.s = text;
    p.pos = 0;
    p.err = err;
    p.errcap = errcap;
    p.depth = 0;
    if (err && errcap) err[0] = 0;
    json_value *v = parse_value(&p);
    if (!v) return NULL;
    skip_ws(&p);
    if (p.s[p.pos] != 0) { json_free(v); jfail(&p, "trailing characters"); return NULL; }
    return v;
}
void json_free(json_value *v) {
    if (!v) return;
    for (int i = 0; i < v->count; i++) {
        json_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    free(v);
}
json_value *json_get(const json_value *o, const char *key) {
    if (!o || o->type != JSON_OBJECT) return NULL;
    for (int i = 0; i < o->count; i++)
        if (!strcmp(o->keys[i], key)) return o->items[i];
    return NULL;
}
json_value *json_at(const json_value *a, int i) {
    if (!a || (a->type != JSON_ARRAY && a->type != JSON_OBJECT) || i < 0 || i >= a->count) return NULL;
    return a->items[i];
}
