# The AstraSIP tools, in TOOLS.md order: sourced by scripts/gen-man.sh, scripts/install.sh and
# scripts/check-install.sh so that the man pages, completions and `make install` cover the same set
# (ToolSpecs.all in Modules/ToolSupport/Tools/ToolSpecs.swift is the Swift side; a test compares).
# shellcheck disable=SC2034
astra_tools=(astra-register astra-call astra-qr astra-pushsim astra-wakegw astra-trace astra-torture)
