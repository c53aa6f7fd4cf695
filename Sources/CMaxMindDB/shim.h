#ifndef ATTRIBUTIOND_CMAXMINDDB_SHIM_H
#define ATTRIBUTIOND_CMAXMINDDB_SHIM_H
#include <maxminddb.h>

// MMDB_get_value is variadic, which Swift cannot call, and its answer is a union: one function
// that looks an address up and copies its two-letter country code (the country, else the country
// the network is registered in) into `code`. Returns 1 when it found one.
static inline int attributiond_mmdb_country(const MMDB_s *db, const char *ip, char code[3]) {
    int gai_error = 0, mmdb_error = 0;
    MMDB_lookup_result_s result = MMDB_lookup_string(db, ip, &gai_error, &mmdb_error);
    if (gai_error != 0 || mmdb_error != MMDB_SUCCESS || !result.found_entry) return 0;
    const char *places[] = {"country", "registered_country"};
    for (int index = 0; index < 2; index++) {
        MMDB_entry_data_s data;
        if (MMDB_get_value(&result.entry, &data, places[index], "iso_code", NULL) != MMDB_SUCCESS) continue;
        if (!data.has_data || data.type != MMDB_DATA_TYPE_UTF8_STRING || data.data_size != 2) continue;
        code[0] = data.utf8_string[0];
        code[1] = data.utf8_string[1];
        code[2] = 0;
        return 1;
    }
    return 0;
}
// The flags of an anonymous-IP database (GeoIP2-Anonymous-IP and files in its shape) for an
// address, as bits: 1 is_hosting_provider, 2 is_anonymous_vpn, 4 is_public_proxy,
// 8 is_tor_exit_node, 16 is_residential_proxy. 0 when the address is not in the file.
static inline int attributiond_mmdb_anonymous(const MMDB_s *db, const char *ip) {
    int gai_error = 0, mmdb_error = 0;
    MMDB_lookup_result_s result = MMDB_lookup_string(db, ip, &gai_error, &mmdb_error);
    if (gai_error != 0 || mmdb_error != MMDB_SUCCESS || !result.found_entry) return 0;
    const char *keys[] = {"is_hosting_provider", "is_anonymous_vpn", "is_public_proxy", "is_tor_exit_node", "is_residential_proxy"};
    int flags = 0;
    for (int index = 0; index < 5; index++) {
        MMDB_entry_data_s data;
        if (MMDB_get_value(&result.entry, &data, keys[index], NULL) != MMDB_SUCCESS) continue;
        if (data.has_data && data.type == MMDB_DATA_TYPE_BOOLEAN && data.boolean) flags |= 1 << index;
    }
    return flags;
}
#endif
