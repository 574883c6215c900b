# SPDX-License-Identifier: GPL-2.0-only
#
# Sphinx configuration of rcm's documentation ("make htmldocs"). The
# kernel-doc directive is the kernel's own extension, taken from Debian's
# linux-source-6.1 by tools/testing/kernel-script.sh, and runs the same
# source's scripts/kernel-doc over this tree's headers.
import os
import subprocess
import sys

top = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
script = os.path.join(top, 'tools', 'testing', 'kernel-script.sh')
sys.path.insert(0, subprocess.check_output([script, 'sphinx'], text=True).strip())

project = 'rcm'
copyright = 'The rcm authors'
extensions = ['kerneldoc']
kerneldoc_bin = os.path.join(top, 'tools', 'testing', 'kernel-doc.sh')
kerneldoc_srctree = top
primary_domain = 'c'
highlight_language = 'none'
master_doc = 'index'
exclude_patterns = []
html_theme = 'alabaster'
