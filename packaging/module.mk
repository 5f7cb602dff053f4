# SPDX-License-Identifier: GPL-3.0-or-later
# make install / make uninstall, with PREFIX (default /usr/local) and DESTDIR.
#   binary      $(PREFIX)/bin/neug
#   man pages   $(PREFIX)/share/man/man1/neug*.1
#   docs        $(PREFIX)/share/doc/neug/ (README, COPYING, doc/*.md, samples)
#   udev rule   /lib/udev/rules.d/70-neug.rules when PREFIX is /usr, else
#               $(PREFIX)/lib/udev/rules.d (udev does not read that: copy or
#               link it to /etc/udev/rules.d)
#   units       /lib/systemd/system when PREFIX is /usr, else
#               $(PREFIX)/lib/systemd/system (systemd reads /usr/local/lib/systemd/system)
#   completion  $(PREFIX)/share/bash-completion/completions/neug
#   AppStream   $(PREFIX)/share/metainfo/org.example.neug.metainfo.xml (the board's modalias)
#   alert rules $(PREFIX)/share/neug/prometheus/neug-rules.yml (Prometheus)
# Units name the binary by its installed path.
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man/man1
DOCDIR  ?= $(PREFIX)/share/doc/neug
UDEVDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/udev/rules.d,$(PREFIX)/lib/udev/rules.d)
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
COMPDIR ?= $(PREFIX)/share/bash-completion/completions
METADIR ?= $(PREFIX)/share/metainfo
PROMDIR ?= $(PREFIX)/share/neug/prometheus
INSTALL ?= install

PKG_MAN   = $(sort $(wildcard packaging/man/*.1))
PKG_UNITS = $(sort $(wildcard packaging/systemd/*.service packaging/systemd/*.socket))
PKG_DOCS  = $(wildcard README.md COPYING) $(sort $(wildcard doc/*.md))
PKG_SAMPLES = packaging/rng-tools/rng-tools-debian packaging/rng-tools/rngd.service.d/neug.conf

install: $(B)/neug
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DOCDIR)/examples \
		$(DESTDIR)$(UDEVDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(COMPDIR) $(DESTDIR)$(METADIR) \
		$(DESTDIR)$(PROMDIR)
	$(INSTALL) -m 0755 $(B)/neug $(DESTDIR)$(BINDIR)/neug
	$(INSTALL) -m 0644 $(PKG_MAN) $(DESTDIR)$(MANDIR)/
	$(INSTALL) -m 0644 packaging/udev/70-neug.rules $(DESTDIR)$(UDEVDIR)/70-neug.rules
	$(INSTALL) -m 0644 packaging/bash-completion/neug $(DESTDIR)$(COMPDIR)/neug
	$(INSTALL) -m 0644 packaging/appstream/org.example.neug.metainfo.xml $(DESTDIR)$(METADIR)/org.example.neug.metainfo.xml
	$(INSTALL) -m 0644 packaging/prometheus/neug-rules.yml $(DESTDIR)$(PROMDIR)/neug-rules.yml
	for u in $(PKG_UNITS); do \
		sed 's|@BINDIR@|$(BINDIR)|g' $$u > $(DESTDIR)$(UNITDIR)/$${u##*/}.tmp && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$${u##*/}.tmp && \
		mv $(DESTDIR)$(UNITDIR)/$${u##*/}.tmp $(DESTDIR)$(UNITDIR)/$${u##*/} || exit 1; \
	done
	$(if $(PKG_DOCS),$(INSTALL) -m 0644 $(PKG_DOCS) $(DESTDIR)$(DOCDIR)/)
	$(INSTALL) -m 0644 packaging/rng-tools/rng-tools-debian $(DESTDIR)$(DOCDIR)/examples/rng-tools-debian
	$(INSTALL) -m 0644 packaging/rng-tools/rngd.service.d/neug.conf $(DESTDIR)$(DOCDIR)/examples/rngd.service.d-neug.conf

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/neug
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/,$(notdir $(PKG_MAN)))
	rm -f $(DESTDIR)$(UDEVDIR)/70-neug.rules
	rm -f $(DESTDIR)$(COMPDIR)/neug $(DESTDIR)$(METADIR)/org.example.neug.metainfo.xml
	rm -f $(DESTDIR)$(PROMDIR)/neug-rules.yml
	-rmdir $(DESTDIR)$(PROMDIR) $(DESTDIR)$(dir $(PROMDIR)) 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(UNITDIR)/,$(notdir $(PKG_UNITS)))
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(PKG_DOCS)))
	rm -f $(DESTDIR)$(DOCDIR)/examples/rng-tools-debian $(DESTDIR)$(DOCDIR)/examples/rngd.service.d-neug.conf
	-rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) 2>/dev/null

.PHONY: install uninstall

# ---- Debian packages -------------------------------------------------------
# Distribution build flags (debian/rules passes dpkg-buildflags' hardening
# flags) go on top of the project's own (-std=c11; debian/rules sets WARN
# without -Werror).
CPPFLAGS += $(DISTRO_CPPFLAGS)
CFLAGS   += $(DISTRO_CFLAGS)
LDLIBS   += $(DISTRO_LDFLAGS)

# The package build's tests: the unit tests without the ASan builds (about
# 30 s); the rest of `make check` needs QEMU guests and root.
check-unit-fast:
	@$(MAKE) --no-print-directory $(B)/neug $(UNIT_BIN)
	@bash tests/run.sh unit

# make deb: dpkg-buildpackage -us -uc (source and binaries) on a copy of the
# tree (the files git knows, committed or not) in a temporary directory, as
# on a clean clone; the .debs, .dsc, source tarball, .changes and .buildinfo
# land in build/deb/, and lintian runs on the .changes (the source package
# too) when it is installed (LINTIAN=0 skips it).
DEB_OUT ?= $(B)/deb
deb:
	@bash packaging/mkdeb.sh $(DEB_OUT)

.PHONY: check-unit-fast deb
