/* json.h - a small JSON reader for case.json files (tests only). */
#ifndef CONF_JSON_H
#define CONF_JSON_H
#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;
typedef struct json_value json_value;
struct json_value {
    json_type type;
    double number;          /* JSON_NUMBER, JSON_BOOL (0/1) */
    char *string;           /* JSON_STRING */
    int count;              /* JSON_ARRAY, JSON_OBJECT */
    json_value **items;     /* array elements / object values */
    char **keys;            /* object keys */
};

/* Parses text; NULL on malformed input (err gets a message). */
json_value *json_parse(const char *text, char *err, size_t errcap);
void json_free(json_value *v);
json_value *json_get(const json_value *obj, const char *key);   /* NULL if absent or not an object */
json_value *json_at(const json_value *arr, int i);
#endif
