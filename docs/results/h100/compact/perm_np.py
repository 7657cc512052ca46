# Writes the 1000² grid renumbered in Morton and Hilbert order (issue 19 experiment,
# call5.sh; copied into bundle/ for the run). Prints each order's ids of vertices 0
# and 500500.
import numpy as np, sys
d=sys.argv[1]; W=H=1000
e=np.loadtxt(f'{d}/grid.wel',dtype=np.int64)
v=np.arange(W*H); r=v//W; c=v%W
def morton(r,c):
    k=np.zeros_like(r)
    for b in range(10):
        k|=((c>>b)&1)<<(2*b); k|=((r>>b)&1)<<(2*b+1)
    return k
def hilbert(x,y,n=1024):
    x=x.copy(); y=y.copy(); dd=np.zeros_like(x); s=n//2
    while s>0:
        rx=((x&s)>0).astype(np.int64); ry=((y&s)>0).astype(np.int64)
        dd+=s*s*((3*rx)^ry)
        m=ry==0; f=m&(rx==1)
        x[f]=s-1-x[f]; y[f]=s-1-y[f]
        t=x[m].copy(); x[m]=y[m]; y[m]=t
        s//=2
    return dd
for name,key in [('morton',morton(r,c)),('hilbert',hilbert(c,r))]:
    n2o=np.argsort(key,kind='stable'); o2n=np.empty_like(n2o); o2n[n2o]=np.arange(W*H)
    np.savetxt(f'{d}/{name}.wel',np.column_stack([o2n[e[:,0]],o2n[e[:,1]],e[:,2]]),fmt='%d')
    print(name,o2n[0],o2n[500500])
