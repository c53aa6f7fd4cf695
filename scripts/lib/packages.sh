# Debian package helpers for the release checks (sourced by scripts/release, check-release and
# check-container).

# The package that owns shared library $1 (as ldd prints it); empty when dpkg knows none.
package_of() {
  local lib=$1 candidate
  for candidate in "$(readlink -f "$lib")" "$lib" "/usr$lib" "/usr$(readlink -f "$lib")"; do
    dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1 && return 0
  done
  return 0
}

# The libraries $1 links directly (its NEEDED entries), resolved as the loader would.
direct_libraries() {
  local binary=$1 needed
  for needed in $(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    ldd "$binary" | awk -v name="$needed" '$1 == name && /=>/ { print $3 }'
  done
}

# Packages $@ and everything apt installs with them, recursively.
with_dependencies() {
  local queue=("$@") seen=" " package dependency
  while [ ${#queue[@]} -gt 0 ]; do
    package=${queue[0]}; queue=("${queue[@]:1}")
    case "$seen" in *" $package "*) continue ;; esac
    seen="$seen$package "
    for dependency in $(dpkg-query -W -f='${Depends} ${Pre-Depends}' "$package" 2>/dev/null \
                        | tr ',|' '\n\n' | sed 's/([^)]*)//g; s/:any//g' | awk '{ print $1 }'); do
      queue+=("$dependency")
    done
  done
  echo "$seen"
}

# Packages every Debian and Ubuntu system has: the C runtime and what it comes with.
base_packages="libc6 libgcc-s1 libstdc++6 zlib1g"
