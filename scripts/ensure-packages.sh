# Sourced by setup.sh, bench.sh and fuzz.sh: ensure_packages TOOL PACKAGE...
# installs the Debian packages of the list that are missing (apt-get, with
# sudo unless root), saying which under TOOL's name. Nothing when all are in.
ensure_packages() {
  local tool=$1 package missing=()
  shift
  for package in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
        grep -q "install ok installed"; then
      missing+=("$package")
    fi
  done
  ((${#missing[@]})) || return 0
  echo "$tool: installing ${missing[*]}"
  local sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo=sudo; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
}
