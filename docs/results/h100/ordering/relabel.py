W=H=1000
order = sorted(range(W*H), key=lambda v: (v//W + v%W, v//W))
new = [0]*(W*H)
for k,v in enumerate(order): new[v]=k
with open('grid_rm.wel') as f, open('grid_diag.wel','w') as o:
    out=[]
    for line in f:
        a,b,w=line.split()
        out.append(f"{new[int(a)]} {new[int(b)]} {w}\n")
    o.write(''.join(out))
