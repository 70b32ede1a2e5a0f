# trim.py IN OUT KEEP_REGEX [CAP_REGEX CAP]: keep the header, every non-entry top-level item and
# the entries whose name matches KEEP_REGEX; `.maxnreg CAP` on kept entries matching CAP_REGEX.
import re, sys
src, dst, keep = sys.argv[1], sys.argv[2], re.compile(sys.argv[3])
cap_re, cap = (re.compile(sys.argv[4]), sys.argv[5]) if len(sys.argv) > 5 else (None, None)
out, item, depth, name, in_item = [], [], 0, None, False
for line in open(src).read().split('\n'):
    if not in_item:
        m = re.match(r'\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+(\w+)', line)
        if m or re.match(r'\s*(?:\.visible\s+|\.weak\s+)?\.func\b', line):
            in_item, item, depth, name = True, [], 0, (m.group(1) if m else None)
        else:
            out.append(line)
            continue
    item.append(line)
    depth += line.count('{') - line.count('}')
    if depth == 0 and any('{' in l for l in item):
        in_item = False
        if name is None or keep.search(name):
            text = '\n'.join(item)
            if name and cap_re is not None and cap_re.search(name):
                text = re.sub(r'\.maxnreg \d+', f'.maxnreg {cap}', text)
            out.append(text)
open(dst, 'w').write('\n'.join(out))
