# Hop depth of BFS and of shortest-path trees on the 1000² grid (docs/results/h100/racefree/README.md):
# python3 hops.py after `vertex gen grid --width 1000 --height 1000 --output /tmp/g1000.wel`.
import heapq, sys, collections
n=1000000
adj=[[] for _ in range(n)]
for l in open('/tmp/g1000.wel'):
    a,b,w=l.split(); adj[int(a)].append((int(b),int(w)))
def bfs(s):
    d=[-1]*n; d[s]=0; q=collections.deque([s])
    while q:
        u=q.popleft()
        for v,_ in adj[u]:
            if d[v]<0: d[v]=d[u]+1; q.append(v)
    return d
def dij(s):
    INF=1<<60; d=[INF]*n; h=[-1]*n; d[s]=0; h[s]=0; pq=[(0,s)]
    while pq:
        du,u=heapq.heappop(pq)
        if du>d[u]: continue
        for v,w in adj[u]:
            nd=du+w
            if nd<d[v] or (nd==d[v] and h[u]+1<h[v]): d[v]=nd; h[v]=h[u]+1; heapq.heappush(pq,(nd,v))
    return d,h
for s in [0,500500,123456]:
    b=bfs(s); d,h=dij(s)
    print(s, "bfs depth", max(b), "sssp tree hops (fewest among shortest)", max(h), "ratio %.2f"%(max(h)/max(b)))
