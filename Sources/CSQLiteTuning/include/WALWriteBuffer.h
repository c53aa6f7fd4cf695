#ifndef ATTRIBUTIOND_WAL_WRITE_BUFFER_H
#define ATTRIBUTIOND_WAL_WRITE_BUFFER_H

/// Registers, as the default, a VFS over the platform's own that gathers the WAL frames of one
/// commit into a single write. Call once, before the first connection opens; returns an SQLite
/// result code.
int attributiond_install_wal_write_buffer(void);

/// On the calling thread: WAL writes SQLite made, and writes that reached the file.
void attributiond_wal_write_counts(unsigned long long *requested, unsigned long long *issued);

#endif
